/**
 * Reads on behalf of a Graph's ServiceAccount (design/graph.md §24, a kgraph deviation from kro).
 *
 * The controller reads from informer caches filled with its own, broad identity. Handing those
 * objects to any Graph would make the controller a confused deputy: a Graph author could read every
 * object the controller can (a Secret in another namespace through a `ref`, say). So every value a
 * Graph's evaluation reads — refs by name and by selector, the observed state of its templates and
 * patch targets, stamped child Graphs — passes through `ReadScope.guard`, which hands it over only if
 * the Graph's ServiceAccount is itself authorised: `get` on the object (namespace and name) for a
 * lookup, `list` in the namespace (or cluster-wide for an all-namespaces selector or a
 * cluster-scoped kind) for a selector.
 *
 * Mechanism (docs/security.md): SubjectAccessReviews, asked by the controller, answered by every
 * authorizer of the API server, cached per (ServiceAccount, verb, group, resource, namespace, name)
 * for `ttlMs` (default 60 s), and re-asked as soon as an RBAC object that may change the answer
 * changes (rbacChanges.ts → `recheck`); listeners hear which ServiceAccounts' answers changed. A
 * lookup first asks about every name in the namespace (one review serves all objects of a kind) and
 * asks about the one name only if that is refused (RBAC `resourceNames`).
 *
 * The engine is synchronous, so the guard never waits: a read whose answer is not cached yet returns
 * nothing and is recorded as undecided; the caller resolves the ledger and evaluates again (like a
 * kind without a synced informer). A refused read returns nothing and is recorded with the node that
 * read it; the caller must then discard the evaluation and write nothing (the Graph reports
 * `ResourcesConverged=False`, reason `ReadForbidden`).
 */
import type { Logger } from 'pino';
import { type RestClient, type ReviewSubject, subjectAccessReview } from '../../kube/index.ts';
import type { ObjectIdentity, ObservedState } from '../../runtime/observed.ts';
import type { LabelSelector } from '../../runtime/selector.ts';
import { serviceAccountUser } from './names.ts';
import { grantHint, serviceAccountOf } from './rbacHint.ts';

export type ReadVerb = 'get' | 'list';

/** The REST coordinates of a kind, what an access review is asked about. */
export interface ResourceCoordinates {
  /** '' for the core group. */
  group: string;
  /** The plural resource name. */
  resource: string;
  namespaced: boolean;
}

/** Finds the coordinates of a kind (undefined: not resolved, or not served). */
export type ResourceLookup = (apiVersion: string, kind: string) => ResourceCoordinates | undefined;

/** One kind of read asked about. */
export interface ReadCheck {
  verb: ReadVerb;
  group: string;
  resource: string;
  /** Absent: cluster-wide (a cluster-scoped kind, or a list across all namespaces). */
  namespace?: string;
  /** A `get` of one object. */
  name?: string;
}

/** A read refused to a Graph: which node read what. */
export interface ReadDenial extends ReadCheck {
  /** Dotted path of the node whose evaluation read it (undefined when the engine did not say). */
  node: string | undefined;
  apiVersion: string;
  kind: string;
}

/** What one evaluation's reads needed: answers not known yet, and reads refused. */
export interface ReadLedger {
  undecided: Map<string, ReadCheck>;
  denied: ReadDenial[];
}

export function newReadLedger(): ReadLedger {
  return { undecided: new Map(), denied: [] };
}

/**
 * The subject of a ServiceAccount as the API server authenticates (and impersonates) it: its user
 * name and the groups every ServiceAccount token carries. A SubjectAccessReview adds no groups by
 * itself, and RBAC bindings to `system:serviceaccounts[:<ns>]` or `system:authenticated` must count.
 */
export function serviceAccountSubject(namespace: string, name: string): ReviewSubject {
  return {
    user: serviceAccountUser(namespace, name),
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
  };
}

interface Decision {
  subject: ReviewSubject;
  check: ReadCheck;
  allowed: boolean;
  at: number;
}

export interface ReadAccessOptions {
  /** How long an answer is trusted without an RBAC event (default 60 s). */
  ttlMs?: number;
  /** Reviews in flight during a recheck (default 8). */
  recheckConcurrency?: number;
  /** Cached answers kept at most; the oldest go first (default 100 000). */
  maxEntries?: number;
  now?: () => number;
  log?: Logger;
}

/** Counters of the access checks (bench/, metrics). */
export interface ReadAccessStats {
  /** SubjectAccessReviews sent. */
  reviews: number;
  /** Guarded reads answered from the cache. */
  cachedReads: number;
  /** Guarded reads refused. */
  refusedReads: number;
}

const DEFAULT_TTL_MS = 60_000;

function checkKey(subject: ReviewSubject, c: ReadCheck): string {
  return `${subject.user}\n${c.verb}\n${c.group}\n${c.resource}\n${c.namespace ?? ''}\n${c.name ?? ''}`;
}

/** `get secrets "x" in namespace team-b`, `list configmaps in all namespaces`. */
export function describeCheck(c: ReadCheck): string {
  const resource = c.group ? `${c.resource}.${c.group}` : c.resource;
  const name = c.name !== undefined ? ` "${c.name}"` : '';
  const where = c.namespace !== undefined ? ` in namespace ${c.namespace}` : ' cluster-wide';
  return `${c.verb} ${resource}${name}${where}`;
}

/** The ReadForbidden message: one clause per refused read, naming node, verb and resource. */
export function readForbiddenMessage(ledger: ReadLedger, subject: ReviewSubject): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const d of ledger.denied) {
    const text = `node ${d.node ?? '?'}: ${subject.user} may not ${describeCheck(d)}`;
    if (seen.has(text)) continue;
    seen.add(text);
    parts.push(text);
  }
  for (const c of ledger.undecided.values()) parts.push(`access to ${describeCheck(c)} is not decided`);
  const text = parts.join('; ');
  // What to grant, for the first refused read's scope (every resource refused there).
  const first = ledger.denied[0];
  const sa = first ? serviceAccountOf(subject.user) : undefined;
  const hint =
    first && sa
      ? ` (${grantHint({
          ...sa,
          resources: ledger.denied
            .filter((d) => d.namespace === first.namespace)
            .map((d) => (d.group ? `${d.resource}.${d.group}` : d.resource)),
          ...(first.namespace !== undefined ? { namespace: first.namespace } : {}),
          // In its own namespace a Graph reads what it writes; elsewhere it only reads.
          readOnly: first.namespace !== sa.saNamespace,
        })})`
      : '';
  const room = 2000 - hint.length;
  return `${text.length > room ? `${text.slice(0, room - 3)}...` : text}${hint}`;
}

export class ReadAccess {
  private readonly client: RestClient;
  private readonly resourceOf: ResourceLookup;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly recheckConcurrency: number;
  private readonly now: () => number;
  private readonly log: Logger | undefined;
  private readonly decisions: Map<string, Decision>;
  private readonly inflight: Map<string, Promise<boolean>>;
  private readonly listeners: ((users: ReadonlySet<string>) => void)[];
  readonly stats: ReadAccessStats;

  /**
   * `client` asks the reviews with the controller's identity (`create` on subjectaccessreviews);
   * `resourceOf` finds the kinds the scopes' reads name (none: nothing is resolved until a view
   * brings its own, `withResources`). `base`: see `withResources`.
   */
  constructor(
    client: RestClient,
    resourceOf: ResourceLookup = () => undefined,
    opts: ReadAccessOptions = {},
    base?: ReadAccess,
  ) {
    this.client = client;
    this.resourceOf = resourceOf;
    this.ttlMs = base?.ttlMs ?? opts.ttlMs ?? DEFAULT_TTL_MS;
    this.maxEntries = base?.maxEntries ?? opts.maxEntries ?? 100_000;
    this.recheckConcurrency = base?.recheckConcurrency ?? opts.recheckConcurrency ?? 8;
    this.now = base?.now ?? opts.now ?? Date.now;
    this.log = base?.log ?? opts.log;
    // A view shares the answers, the requests in flight, the listeners and the counters of its base.
    this.decisions = base?.decisions ?? new Map();
    this.inflight = base?.inflight ?? new Map();
    this.listeners = base?.listeners ?? [];
    this.stats = base?.stats ?? { reviews: 0, cachedReads: 0, refusedReads: 0 };
  }

  /**
   * The same cache (answers, reviews in flight, change listeners, counters) with another resource
   * lookup: how one cache serves controllers that each resolve kinds through their own informers (the
   * Graph and the RGD controllers of one process, `SharedReadAccess` in rbacChanges.ts).
   */
  withResources(resourceOf: ResourceLookup): ReadAccess {
    return new ReadAccess(this.client, resourceOf, {}, this);
  }

  /** Cached answers. */
  get size(): number {
    return this.decisions.size;
  }

  /** Called with the users whose answers changed on a recheck (to reconcile their Graphs). */
  onChange(listener: (users: ReadonlySet<string>) => void): void {
    this.listeners.push(listener);
  }

  /** The reads of one ServiceAccount. */
  forServiceAccount(namespace: string, name: string): ReadScope {
    return new ReadScope(this, serviceAccountSubject(namespace, name));
  }

  /** The reads of any subject (e.g. an RGD's ServiceAccount, or a user). */
  forSubject(subject: ReviewSubject): ReadScope {
    return new ReadScope(this, subject);
  }

  /** The cached answer, or undefined when there is none (or it expired). */
  decided(subject: ReviewSubject, check: ReadCheck): boolean | undefined {
    const d = this.decisions.get(checkKey(subject, check));
    if (!d) return undefined;
    if (this.now() - d.at > this.ttlMs) return undefined;
    return d.allowed;
  }

  /**
   * Whether `subject` may do `check`, from the cache: a `get` of one name is allowed when every name
   * of the kind in the namespace is, else when that name is. Undefined: ask first (`resolve`).
   */
  allows(subject: ReviewSubject, check: ReadCheck): boolean | undefined {
    if (check.name === undefined) return this.decided(subject, check);
    const broad = this.decided(subject, withoutName(check));
    if (broad !== false) return broad;
    return this.decided(subject, check);
  }

  /** Asks whatever `allows` could not answer for these checks. Rejects when a review fails. */
  async resolve(subject: ReviewSubject, checks: Iterable<ReadCheck>): Promise<void> {
    await Promise.all(
      [...checks].map(async (c) => {
        if (c.name === undefined) {
          await this.review(subject, c);
          return;
        }
        if (await this.review(subject, withoutName(c))) return;
        await this.review(subject, c);
      }),
    );
  }

  /** One answer: cached, in flight, or asked now. */
  private review(subject: ReviewSubject, check: ReadCheck): Promise<boolean> {
    const cached = this.decided(subject, check);
    if (cached !== undefined) return Promise.resolve(cached);
    const key = checkKey(subject, check);
    const running = this.inflight.get(key);
    if (running) return running;
    const p = this.ask(subject, check)
      .then((allowed) => {
        this.store(key, { subject, check, allowed, at: this.now() });
        return allowed;
      })
      .finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  private async ask(subject: ReviewSubject, check: ReadCheck): Promise<boolean> {
    this.stats.reviews += 1;
    const r = await subjectAccessReview(this.client, subject, {
      verb: check.verb,
      group: check.group,
      resource: check.resource,
      ...(check.namespace !== undefined ? { namespace: check.namespace } : {}),
      ...(check.name !== undefined ? { name: check.name } : {}),
    });
    return r.allowed && !r.denied;
  }

  private store(key: string, d: Decision): void {
    this.decisions.delete(key); // re-insert: Map order is age order
    this.decisions.set(key, d);
    while (this.decisions.size > this.maxEntries) {
      const oldest = this.decisions.keys().next().value;
      if (oldest === undefined) break;
      this.decisions.delete(oldest);
    }
  }

  /**
   * Asks again every cached answer `affected` selects (an RBAC object changed), drops expired ones,
   * and tells the listeners whose answers changed. A failed review drops the answer (asked again on
   * the next read) and counts as a change, so the Graph is reconciled and re-checked.
   */
  async recheck(
    affected: (subject: ReviewSubject, check: ReadCheck) => boolean,
  ): Promise<ReadonlySet<string>> {
    const now = this.now();
    const todo: [string, Decision][] = [];
    for (const [k, d] of this.decisions) {
      if (now - d.at > this.ttlMs) this.decisions.delete(k);
      else if (affected(d.subject, d.check)) todo.push([k, d]);
    }
    const changed = new Set<string>();
    let i = 0;
    const worker = async (): Promise<void> => {
      while (i < todo.length) {
        const [k, d] = todo[i++] as [string, Decision];
        try {
          const allowed = await this.ask(d.subject, d.check);
          if (allowed !== d.allowed) changed.add(d.subject.user);
          this.store(k, { ...d, allowed, at: this.now() });
        } catch (e) {
          this.decisions.delete(k);
          changed.add(d.subject.user);
          this.log?.warn({ err: e instanceof Error ? e.message : String(e) }, 'access recheck failed');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.recheckConcurrency, todo.length) }, worker));
    if (changed.size > 0) for (const l of this.listeners) l(changed);
    return changed;
  }

  /** Forgets every answer. */
  clear(): void {
    this.decisions.clear();
  }

  /** @internal for ReadScope */
  coordinates(apiVersion: string, kind: string): ResourceCoordinates | undefined {
    return this.resourceOf(apiVersion, kind);
  }
}

function withoutName(c: ReadCheck): ReadCheck {
  const { name: _name, ...rest } = c;
  return rest;
}

/** The reads of one subject: guards observed states and resolves what they could not decide. */
export class ReadScope {
  readonly access: ReadAccess;
  readonly subject: ReviewSubject;

  constructor(access: ReadAccess, subject: ReviewSubject) {
    this.access = access;
    this.subject = subject;
  }

  /** Asks the undecided checks of a ledger. */
  resolve(ledger: ReadLedger): Promise<void> {
    return this.access.resolve(this.subject, ledger.undecided.values());
  }

  /**
   * `inner` as this subject may see it: objects and lists it is not (known to be) allowed to read are
   * not returned, and the ledger says why. `inner` is still consulted first, so it records interest
   * and notes kinds without informers as before.
   */
  guard(inner: ObservedState, ledger: ReadLedger): ObservedState {
    const access = this.access;
    const stats = access.stats;
    const decide = (
      check: ReadCheck,
      apiVersion: string,
      kind: string,
      reader: string | undefined,
    ): boolean => {
      const ok = access.allows(this.subject, check);
      if (ok === true) {
        stats.cachedReads += 1;
        return true;
      }
      if (ok === undefined) {
        ledger.undecided.set(checkKey(this.subject, check), check);
        return false;
      }
      stats.refusedReads += 1;
      ledger.denied.push({ ...check, node: reader, apiVersion, kind });
      return false;
    };
    return {
      get: (id: ObjectIdentity, reader?: string) => {
        const value = inner.get(id, reader);
        const r = access.coordinates(id.apiVersion, id.kind);
        if (!r) return undefined; // kind not resolved yet: the inner view noted it
        const check: ReadCheck = { verb: 'get', group: r.group, resource: r.resource, name: id.name };
        if (r.namespaced && id.namespace !== undefined) check.namespace = id.namespace;
        return decide(check, id.apiVersion, id.kind, reader) ? value : undefined;
      },
      list: (
        apiVersion: string,
        kind: string,
        namespace: string | undefined,
        selector: LabelSelector,
        reader?: string,
      ) => {
        const items = inner.list(apiVersion, kind, namespace, selector, reader);
        const r = access.coordinates(apiVersion, kind);
        if (!r) return [];
        const check: ReadCheck = { verb: 'list', group: r.group, resource: r.resource };
        if (r.namespaced && namespace !== undefined) check.namespace = namespace;
        return decide(check, apiVersion, kind, reader) ? items : [];
      },
      servedType: (apiVersion: string, kind: string) => inner.servedType(apiVersion, kind),
    };
  }
}

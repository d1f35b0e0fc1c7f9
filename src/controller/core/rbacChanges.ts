/**
 * Watches RBAC objects (Roles, RoleBindings, ClusterRoles, ClusterRoleBindings) so that cached
 * access answers (readAccess.ts) are asked again as soon as a grant or a revocation may change them,
 * instead of waiting for their TTL.
 *
 * Which answers a change may affect:
 * - a Role: every answer about its namespace;
 * - a RoleBinding: answers about its namespace for the subjects it binds (before and after);
 * - a ClusterRoleBinding: answers anywhere for the subjects it binds (before and after);
 * - a ClusterRole: every answer (any binding in any namespace may reference it, aggregation too).
 *
 * Changes arriving within `debounceMs` are checked together; the same scope is checked once more
 * `settleMs` later, because the API server's authorizer follows RBAC objects through its own cache
 * and may answer a review sent right after the change with the old rules.
 */

import type { Logger } from 'pino';
import { Informer, type KubeObject, type RestClient, type ReviewSubject } from '../../kube/index.ts';
import { ReadAccess, type ReadAccessOptions, type ReadCheck, type ResourceLookup } from './readAccess.ts';

export interface RbacSubjectRef {
  kind: string;
  name: string;
  namespace?: string;
}

/** What an RBAC change may affect: a namespace (or everywhere) and the subjects (or anyone). */
export interface RbacScope {
  namespace?: string;
  subjects?: RbacSubjectRef[];
}

const RBAC = 'rbac.authorization.k8s.io/v1';
const KINDS = [
  { plural: 'roles', namespaced: true, binding: false },
  { plural: 'rolebindings', namespaced: true, binding: true },
  { plural: 'clusterroles', namespaced: false, binding: false },
  { plural: 'clusterrolebindings', namespaced: false, binding: true },
] as const;

function subjectsOf(obj: KubeObject): RbacSubjectRef[] {
  const raw = (obj as { subjects?: unknown }).subjects;
  if (!Array.isArray(raw)) return [];
  const out: RbacSubjectRef[] = [];
  for (const s of raw) {
    if (typeof s !== 'object' || s === null) continue;
    const { kind, name, namespace } = s as { kind?: unknown; name?: unknown; namespace?: unknown };
    if (typeof kind !== 'string' || typeof name !== 'string') continue;
    const ref: RbacSubjectRef = { kind, name };
    // A RoleBinding's ServiceAccount subject without a namespace means the binding's namespace.
    const ns = typeof namespace === 'string' && namespace !== '' ? namespace : obj.metadata.namespace;
    if (ns) ref.namespace = ns;
    out.push(ref);
  }
  return out;
}

/** The scope an RBAC event may affect (`objs`: the object before and after). */
export function scopeOfChange(kind: (typeof KINDS)[number], objs: KubeObject[]): RbacScope {
  if (kind.plural === 'clusterroles') return {};
  const scope: RbacScope = {};
  if (kind.namespaced) {
    const ns = objs[0]?.metadata.namespace;
    if (ns) scope.namespace = ns;
  }
  if (kind.binding) scope.subjects = objs.flatMap(subjectsOf);
  return scope;
}

/** Does a binding subject cover this review subject? */
export function subjectMatches(ref: RbacSubjectRef, subject: ReviewSubject): boolean {
  switch (ref.kind) {
    case 'User':
      return ref.name === subject.user;
    case 'Group':
      return subject.groups.includes(ref.name);
    case 'ServiceAccount':
      return `system:serviceaccount:${ref.namespace ?? ''}:${ref.name}` === subject.user;
    default:
      return true; // unknown subject kind: be safe, ask again
  }
}

/** Is a cached answer inside a change's scope? */
export function inScope(scope: RbacScope, subject: ReviewSubject, check: ReadCheck): boolean {
  if (scope.namespace !== undefined && check.namespace !== scope.namespace) return false;
  if (scope.subjects === undefined) return true;
  return scope.subjects.some((s) => subjectMatches(s, subject));
}

export interface RbacWatchOptions {
  debounceMs?: number;
  settleMs?: number;
  onError?: (e: unknown) => void;
}

/** Informers on the four RBAC kinds feeding `access.recheck`. */
export class RbacWatch {
  private readonly informers: Informer[] = [];
  private pending: RbacScope[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly settleTimers = new Set<NodeJS.Timeout>();
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private startedAt = false;
  private readonly debounceMs: number;
  private readonly settleMs: number;

  constructor(
    client: RestClient,
    private readonly access: ReadAccess,
    opts: RbacWatchOptions = {},
  ) {
    this.debounceMs = opts.debounceMs ?? 200;
    this.settleMs = opts.settleMs ?? 2_000;
    for (const kind of KINDS) {
      const inf = new Informer(client, {
        target: { apiVersion: RBAC, plural: kind.plural },
        resyncMs: 0,
        ...(opts.onError ? { onError: opts.onError } : {}),
      });
      // The initial list is not a change: answers cached before it are at least as recent.
      inf.addHandlers({
        add: (o) => {
          if (inf.hasSynced()) this.changed(scopeOfChange(kind, [o]));
        },
        update: (a, b) => {
          if (a !== b && inf.hasSynced()) this.changed(scopeOfChange(kind, [a, b]));
        },
        delete: (o) => {
          if (inf.hasSynced()) this.changed(scopeOfChange(kind, [o]));
        },
      });
      this.informers.push(inf);
    }
  }

  /** Starts the informers; a second call does nothing (a shared watch is started by whoever needs it first). */
  start(): void {
    if (this.startedAt || this.stopped) return;
    this.startedAt = true;
    for (const i of this.informers) i.start();
  }

  /** Whether `start` was called. */
  get started(): boolean {
    return this.startedAt;
  }

  async waitForSync(timeoutMs = 60_000): Promise<void> {
    await Promise.all(this.informers.map((i) => i.waitForSync(timeoutMs)));
  }

  /** Resolves when every recheck started so far has finished (tests, benchmarks). */
  async settled(): Promise<void> {
    await this.running;
  }

  private changed(scope: RbacScope): void {
    if (this.stopped || this.access.size === 0) return;
    this.pending.push(scope);
    this.timer ??= setTimeout(() => this.flush(), this.debounceMs);
  }

  private flush(): void {
    this.timer = undefined;
    const scopes = this.pending;
    this.pending = [];
    this.run(scopes);
    const t = setTimeout(() => {
      this.settleTimers.delete(t);
      this.run(scopes);
    }, this.settleMs);
    this.settleTimers.add(t);
  }

  private run(scopes: RbacScope[]): void {
    if (this.stopped) return;
    const everywhere = scopes.some((s) => s.namespace === undefined && s.subjects === undefined);
    this.running = this.running.then(() =>
      this.access
        .recheck((subject, check) => everywhere || scopes.some((s) => inScope(s, subject, check)))
        .catch(() => undefined),
    );
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const t of this.settleTimers) clearTimeout(t);
    this.settleTimers.clear();
    await Promise.all(this.informers.map((i) => i.stop()));
    await this.running;
  }
}

/**
 * One access cache and one RBAC watch for every controller of a process (`kgraph controller` runs the
 * Graph and the RGD controllers side by side): an answer about a (ServiceAccount, verb, resource) is
 * asked once whichever side reads, and RBAC events are listed, watched and decoded once. Each side adds
 * its own change listener (`access.onChange`) and its own resource lookup (`forServiceAccount`). The
 * owner (the command) stops the watch, after the controllers; a controller given one never stops it.
 */
export interface SharedReadAccess {
  access: ReadAccess;
  watch: RbacWatch;
}

export function sharedReadAccess(client: RestClient, opts: ReadAccessOptions = {}): SharedReadAccess {
  const access = new ReadAccess(client, undefined, opts);
  const watch = new RbacWatch(client, access, {
    onError: (e) => opts.log?.debug({ err: String(e) }, 'rbac watch error'),
  });
  return { access, watch };
}

/** A controller's read checks: a view of the process's shared cache and watch, or its own pair. */
export interface ControllerReads {
  reads: ReadAccess;
  rbacWatch: RbacWatch;
  /** False when the watch is shared: its owner (the command) stops it. */
  ownsRbacWatch: boolean;
}

/**
 * The read checks of one controller (Graph or RGD side), which resolves kinds through its own
 * informers (`resourceOf`): with `shared`, a view of that cache and its watch; else a cache and watch
 * of its own, as when the controller runs alone.
 */
export function controllerReads(
  client: RestClient,
  resourceOf: ResourceLookup,
  opts: { shared?: SharedReadAccess | undefined; ttlMs?: number | undefined; log: Logger },
): ControllerReads {
  if (opts.shared)
    return {
      reads: opts.shared.access.withResources(resourceOf),
      rbacWatch: opts.shared.watch,
      ownsRbacWatch: false,
    };
  const reads = new ReadAccess(client, resourceOf, {
    ...(opts.ttlMs !== undefined ? { ttlMs: opts.ttlMs } : {}),
    log: opts.log,
  });
  const rbacWatch = new RbacWatch(client, reads, {
    onError: (e) => opts.log.debug({ err: String(e) }, 'rbac watch error'),
  });
  return { reads, rbacWatch, ownsRbacWatch: true };
}

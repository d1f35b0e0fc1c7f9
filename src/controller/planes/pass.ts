/**
 * The engine pass of one instance across planes (design/planes.md §5–§6): the pure RGD engine is evaluated
 * again and again over a per-pass memo of what the planes hold. Every read the engine asks for and the
 * memo lacks is fetched from the node's plane (a GET for an identity, a LIST for a selector) and the
 * engine runs again; then the desired templates are applied plane by plane (server-side apply, forced,
 * the stored object is what CEL sees next), and the engine runs again while applies change objects.
 *
 * Routing is by the reading node (`reader` = node path → its `target`), so one GVK can live on several
 * planes. Provider children are looked up and written under their qualified names (design/planes.md §7). A plane that
 * is missing (host without `--host-kubeconfig`) or a consumer claim that is not accepted blocks the node:
 * nothing is sent for it, dependents pend, independent nodes continue (design/planes.md §6.1), the pass is incomplete.
 */
import { kubectlNameIn } from '../../diag/objectName.ts';
import type { CompiledGraph, CompiledNode, Plane } from '../../graph/model.ts';
import { isApiError, isForbidden, type KubeObject, type RestClient } from '../../kube/index.ts';
import { evaluate } from '../../runtime/evaluate.ts';
import {
  identityKey,
  type ObjectIdentity,
  type ObservedState,
  type TypeInfo,
} from '../../runtime/observed.ts';
import { type LabelSelector, matchesSelector } from '../../runtime/selector.ts';
import type { EvaluationResult } from '../../runtime/types.ts';
import { appliedFieldsAgree } from '../core/applyNeeded.ts';
import { type DesiredObject, desiredTemplates, type TemplateItem } from '../core/desired.ts';
import { errorMessage } from '../core/errors.ts';
import type { ClaimChecker } from './access.ts';
import type { Claim } from './claims.ts';
import { CHILD_MANAGER } from './kropApi.ts';

export type BlockReason = 'ClaimNotAccepted' | 'TargetUnavailable';

export interface Blocked {
  reason: BlockReason;
  message: string;
}

export interface PlaneSet {
  clusterID: string;
  consumer: RestClient;
  provider: RestClient;
  host: RestClient | undefined;
  access: ClaimChecker;
  /** The blueprint's published claims (the verbs checked per GR). */
  claims: readonly Claim[];
}

/** One object applied this pass, on its plane. */
export interface AppliedChild {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  /** The stored object's UID (another plane's prune never deletes it, design/planes.md §12.1). */
  uid?: string;
}

/**
 * What a pass read that it does not write (externalRefs and other non-template reads), per plane: the
 * child watches (design/planes.md §11.1) requeue the instance when one of these changes. `name` absent: a LIST (selector).
 */
export interface PassRead {
  plane: Plane;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name?: string;
  selector?: LabelSelector;
}

export interface PassInput {
  compiled: CompiledGraph;
  /** The stamped runtime copy of the instance (design/planes.md §8). */
  instance: KubeObject;
  /** Instance namespace ('' for a cluster-scoped instance). */
  namespace: string;
  planes: PlaneSet;
  /** Adds labels, qualified name and owner reference to a rendered child (the applier chain). */
  decorate: (obj: Record<string, unknown>, node: CompiledNode) => Record<string, unknown>;
  maxCollectionSize?: number;
  maxPasses?: number;
}

export interface PassOutcome {
  result: EvaluationResult;
  hardError?: { reason: 'ExpressionError' | 'ApplyFailed'; message: string };
  blocked: Map<string, Blocked>;
  applied: Record<Plane, Map<string, AppliedChild>>;
  /** design/planes.md §6.3 */
  complete: boolean;
  ready: boolean;
  /** Applies that changed an object (0 in steady state). */
  writes: number;
  /** Non-template reads of this pass (design/planes.md §11.1 externalRef watches). */
  reads: PassRead[];
}

interface GetNeed {
  type: 'get';
  plane: Plane;
  node: CompiledNode | undefined;
  id: ObjectIdentity;
  key: string;
}
interface ListNeed {
  type: 'list';
  plane: Plane;
  node: CompiledNode | undefined;
  apiVersion: string;
  kind: string;
  namespace: string | undefined;
  selector: LabelSelector;
  key: string;
}
type Need = GetNeed | ListNeed;

const PLANES: readonly Plane[] = ['consumer', 'provider', 'host'];

function emptyApplied(): Record<Plane, Map<string, AppliedChild>> {
  return { consumer: new Map(), provider: new Map(), host: new Map() };
}

export function clientOf(planes: PlaneSet, plane: Plane): RestClient | undefined {
  return plane === 'consumer' ? planes.consumer : plane === 'provider' ? planes.provider : planes.host;
}

const listKey = (apiVersion: string, kind: string, ns: string | undefined, sel: LabelSelector): string =>
  `${apiVersion}/${kind}|${ns ?? '*'}|${JSON.stringify(sel)}`;

export async function runPass(input: PassInput): Promise<PassOutcome> {
  return new InstancePass(input).run();
}

/**
 * One pass's state: the memo of what the planes hold (GETs per plane, LISTs, served types), the nodes
 * blocked so far, what was applied and read. The engine is evaluated over it until nothing is left to
 * read and an apply round changes nothing.
 */
class InstancePass {
  private readonly nodes: Map<string, CompiledNode>;
  private readonly memo: Record<Plane, Map<string, KubeObject | null>> = {
    consumer: new Map(),
    provider: new Map(),
    host: new Map(),
  };
  private readonly lists = new Map<string, KubeObject[]>();
  private readonly types = new Map<string, TypeInfo | null>();
  private readonly blocked = new Map<string, Blocked>();
  private readonly applied = emptyApplied();
  private readonly reads: PassRead[] = [];
  private writes = 0;

  constructor(private readonly input: PassInput) {
    this.nodes = new Map(input.compiled.root.nodes.map((n) => [n.path, n]));
  }

  async run(): Promise<PassOutcome> {
    const maxPasses = this.input.maxPasses ?? 12;
    let result: EvaluationResult | undefined;
    let hardError: PassOutcome['hardError'];
    try {
      for (let pass = 0; pass < maxPasses; pass++) {
        const needs: Need[] = [];
        result = this.evaluate(needs);
        if (needs.length > 0 && pass < maxPasses - 1) {
          for (const n of needs) await this.fetchNeed(n);
          continue;
        }
        if (result.errors.length > 0) {
          hardError = {
            reason: 'ExpressionError',
            message: result.errors.map((e) => `node ${e.node}: ${e.message}`).join('; '),
          };
          break;
        }
        if (!(await this.applyDesired(result))) break;
      }
    } catch (e) {
      if (!(e instanceof PassError)) throw e;
      hardError = { reason: e.reason, message: e.message };
    }
    if (!result) throw new Error('internal: no evaluation');
    return this.outcome(result, hardError);
  }

  private evaluate(needs: Need[]): EvaluationResult {
    const { input } = this;
    return evaluate(input.compiled, {
      instance: input.instance,
      observed: this.view(needs),
      ...(input.namespace ? { namespace: input.namespace } : {}),
      ...(input.maxCollectionSize !== undefined ? { maxCollectionSize: input.maxCollectionSize } : {}),
    });
  }

  /** Applies every desired template of unblocked nodes; whether any apply changed an object. */
  private async applyDesired(result: EvaluationResult): Promise<boolean> {
    const desired = desiredTemplates(result, (value, item: TemplateItem) => {
      const node = this.nodes.get(item.node.path);
      return node ? this.input.decorate(value, node) : value;
    });
    let changed = false;
    for (const d of desired) {
      const node = this.nodes.get(d.node.path);
      if (!node || this.blocked.has(node.id)) continue;
      if (await this.applyChild(node.target, node, d)) {
        changed = true;
        this.writes += 1;
      }
    }
    return changed;
  }

  private outcome(result: EvaluationResult, hardError: PassOutcome['hardError']): PassOutcome {
    const { blocked } = this;
    const complete = !hardError && blocked.size === 0 && result.complete && result.errors.length === 0;
    return {
      result,
      ...(hardError ? { hardError } : {}),
      blocked,
      applied: this.applied,
      complete,
      ready: complete && result.ready,
      writes: this.writes,
      reads: this.reads,
    };
  }

  private block(node: CompiledNode | undefined, b: Blocked): void {
    if (node && !this.blocked.has(node.id)) this.blocked.set(node.id, b);
  }

  /** Whether the consumer claim covering `node` is accepted in `namespace`; blocks the node if not. */
  private async consumerAllowed(node: CompiledNode | undefined, namespace: string): Promise<boolean> {
    const { planes } = this.input;
    const r = node?.resolved;
    if (!node || !r?.resource) return true;
    const claim = planes.claims.find((c) => c.group === r.group && c.resource === r.resource);
    if (!claim) return true; // the instance's own GR
    const ns = claim.scope === 'Cluster' ? '' : namespace;
    const acc = await planes.access.check(planes.clusterID, planes.consumer, claim, ns, claim.verbs);
    if (acc.accepted) return true;
    this.block(node, {
      reason: 'ClaimNotAccepted',
      message:
        acc.detail ??
        `claim ${claim.resource}${claim.group ? `.${claim.group}` : ''} is not accepted${ns ? ` in namespace ${ns}` : ' cluster-wide'}: missing verbs ${acc.missing.join(',')}`,
    });
    return false;
  }

  /** Remembers a read that found nothing (or was not sent), so the engine sees "absent" and moves on. */
  private memoAbsent(n: Need): void {
    if (n.type === 'get') this.memo[n.plane].set(n.key, null);
    else this.lists.set(`${n.plane}|${n.key}`, []);
  }

  /** Fetches one read the engine asked for, unless its node is blocked or its plane is missing. */
  private async fetchNeed(n: Need): Promise<void> {
    const client = clientOf(this.input.planes, n.plane);
    if (!client) {
      this.block(n.node, unavailable(n.node, n.plane));
      this.memoAbsent(n);
      return;
    }
    if (n.node && this.blocked.has(n.node.id)) {
      this.memoAbsent(n);
      return;
    }
    const ns = n.type === 'get' ? (n.id.namespace ?? '') : (n.namespace ?? '');
    if (n.plane === 'consumer' && !(await this.consumerAllowed(n.node, ns))) {
      this.memoAbsent(n);
      return;
    }
    if (n.node && n.node.kind !== 'template') this.reads.push(passRead(n));
    try {
      if (n.type === 'get') {
        const o = await client.getOrUndefined(n.id);
        this.memo[n.plane].set(n.key, o ?? null);
      } else {
        const all = await client.listAll({ apiVersion: n.apiVersion, kind: n.kind, namespace: n.namespace });
        const found = all.items.filter((o) => matchesSelector(n.selector, o.metadata.labels ?? {}));
        found.sort((a, b) => keyOfObj(a).localeCompare(keyOfObj(b)));
        this.lists.set(`${n.plane}|${n.key}`, found);
      }
    } catch (e) {
      this.readFailed(n, ns, e);
    }
  }

  /**
   * A refused consumer read blocks its node (the claim is asked again next time); a missing object or
   * kind reads as "not there yet" for a GET (the node pends); anything else fails the pass.
   */
  private readFailed(n: Need, ns: string, e: unknown): void {
    const { planes } = this.input;
    if (n.plane === 'consumer' && isForbidden(e) && n.node?.resolved?.resource) {
      planes.access.invalidate(planes.clusterID, n.node.resolved.group, n.node.resolved.resource, ns);
      this.block(n.node, { reason: 'ClaimNotAccepted', message: `read refused: ${errorMessage(e)}` });
      this.memoAbsent(n);
      return;
    }
    const notThere =
      (isApiError(e) && e.code === 404) || (e instanceof Error && e.name === 'NoKindMatchError');
    if (n.type === 'get' && notThere) {
      this.memo[n.plane].set(n.key, null);
      return;
    }
    throw new PassError(
      'ApplyFailed',
      `${n.type === 'get' ? 'read' : 'list'} ${n.node?.id ?? ''} on the ${n.plane} plane: ${errorMessage(e)}`,
    );
  }

  /** The engine's view of the planes: answers from the memo, records what it lacks in `needs`. */
  private view(needs: Need[]): ObservedState {
    const { nodes, memo, lists, types, input } = this;
    return {
      get(id, reader) {
        const node = nodes.get(reader ?? '');
        const plane: Plane = node?.target ?? 'consumer';
        const actual = plane === 'provider' && node?.kind === 'template' ? qualifiedId(input, node, id) : id;
        const key = identityKey(actual);
        const m = memo[plane];
        if (m.has(key)) return m.get(key) ?? undefined;
        needs.push({ type: 'get', plane, node, id: actual, key });
        return undefined;
      },
      list(apiVersion, kind, namespace, selector, reader) {
        const node = nodes.get(reader ?? '');
        const plane: Plane = node?.target ?? 'consumer';
        const key = listKey(apiVersion, kind, namespace, selector);
        const hit = lists.get(`${plane}|${key}`);
        if (hit) return hit;
        needs.push({ type: 'list', plane, node, apiVersion, kind, namespace, selector, key });
        return [];
      },
      servedType(apiVersion, kind) {
        return types.get(`${apiVersion}/${kind}`) ?? undefined;
      },
    };
  }

  /** The applier chain's innermost steps for one object: pre-check, SSA (skipped when it agrees), record. */
  private async applyChild(plane: Plane, node: CompiledNode, d: DesiredObject): Promise<boolean> {
    const { input, memo, applied } = this;
    const client = clientOf(input.planes, plane);
    if (!client) {
      this.block(node, {
        reason: 'TargetUnavailable',
        message: `no applier configured for target ${plane}`,
      });
      return false;
    }
    if (plane === 'consumer' && !(await this.consumerAllowed(node, d.id.namespace ?? ''))) return false;
    const key = identityKey(d.id);
    const observed = memo[plane].get(key) ?? undefined;
    const record = (stored: KubeObject): void => {
      applied[plane].set(key, {
        apiVersion: d.id.apiVersion,
        kind: d.id.kind,
        ...(d.id.namespace ? { namespace: d.id.namespace } : {}),
        name: d.id.name,
        ...(stored.metadata.uid ? { uid: stored.metadata.uid } : {}),
      });
    };
    if (observed && appliedFieldsAgree(d.obj, observed, CHILD_MANAGER)) {
      record(observed);
      return false;
    }
    try {
      const res = await client.apply(d.obj as KubeObject, { fieldManager: CHILD_MANAGER, force: true });
      memo[plane].set(key, res);
      record(res);
      return observed === undefined || res.metadata.resourceVersion !== observed.metadata.resourceVersion;
    } catch (e) {
      if (plane === 'consumer' && isForbidden(e) && node.resolved?.resource) {
        input.planes.access.invalidate(
          input.planes.clusterID,
          node.resolved.group,
          node.resolved.resource,
          d.id.namespace ?? '',
        );
        // Asked again at once: a revoked grant the cache had not seen yet is reported as the pre-check
        // reports it (the missing verbs); a 403 the grant does not explain (quota, admission) as itself.
        if (!(await this.consumerAllowed(node, d.id.namespace ?? ''))) return false;
        this.block(node, { reason: 'ClaimNotAccepted', message: `write refused: ${errorMessage(e)}` });
        return false;
      }
      throw new PassError(
        'ApplyFailed',
        `apply ${kubectlNameIn(d.id)} on the ${plane} plane: ${errorMessage(e)}`,
      );
    }
  }
}

function unavailable(node: CompiledNode | undefined, plane: Plane): Blocked {
  return {
    reason: 'TargetUnavailable',
    message:
      node?.kind === 'template'
        ? `no applier configured for target ${plane}`
        : `no reader configured for target ${plane}`,
  };
}

/** A non-template read as the child watches record it (design/planes.md §11.1). */
function passRead(n: Need): PassRead {
  return n.type === 'get'
    ? {
        plane: n.plane,
        apiVersion: n.id.apiVersion,
        kind: n.id.kind,
        ...(n.id.namespace ? { namespace: n.id.namespace } : {}),
        name: n.id.name,
      }
    : {
        plane: n.plane,
        apiVersion: n.apiVersion,
        kind: n.kind,
        ...(n.namespace ? { namespace: n.namespace } : {}),
        selector: n.selector,
      };
}

class PassError extends Error {
  readonly reason: 'ExpressionError' | 'ApplyFailed';
  constructor(reason: 'ExpressionError' | 'ApplyFailed', message: string) {
    super(message);
    this.reason = reason;
  }
}

function keyOfObj(o: KubeObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

/** The identity a provider template child has on its plane (its qualified name). */
function qualifiedId(input: PassInput, node: CompiledNode, id: ObjectIdentity): ObjectIdentity {
  const probe = input.decorate(
    {
      apiVersion: id.apiVersion,
      kind: id.kind,
      metadata: id.namespace ? { name: id.name, namespace: id.namespace } : { name: id.name },
    },
    node,
  );
  const name = (probe.metadata as { name?: string }).name ?? id.name;
  return { ...id, name };
}

export { PLANES };

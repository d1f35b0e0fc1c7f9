/**
 * The live source of `kgraph ui`: informers on Graphs, ResourceGraphDefinitions and RGD instances,
 * and on every kind the selected graphs read, all with the user's own credentials, so the page shows
 * only what the user may read. A node's state is what the engine computes from those caches (the
 * same evaluation the controller runs, without writes), plus the controller's verdicts it alone can
 * know (conflicts, failed applies), read from the Graph's conditions.
 *
 * Kinds the user may not list and watch (checked with a SelfSubjectAccessReview before an informer
 * is started, so nothing waits on a watch that can never sync) show as "unreadable".
 */
import { type CompileOutcome, GraphCompiler } from '../controller/core/graphCompiler.ts';
import { newInterest, WatchSet } from '../controller/core/watches.ts';
import {
  ROLLOUT_API_VERSION,
  ROLLOUT_GROUP,
  ROLLOUT_KIND,
  ROLLOUT_PLURAL,
} from '../controller/rgd/rollout/names.ts';
import { kubectlName, kubectlNameIn } from '../diag/objectName.ts';
import { isRecord } from '../diag/record.ts';
import { KRO_API_VERSION } from '../graph/kroApi.ts';
import {
  crdApiVersions,
  Informer,
  type KubeObject,
  type RestClient,
  selfSubjectAccessReview,
  watchCRDs,
} from '../kube/index.ts';
import { evaluate } from '../runtime/evaluate.ts';
import type { ObjectIdentity } from '../runtime/observed.ts';
import type { EvaluationResult } from '../runtime/types.ts';
import { fleetOf, type UiFleet } from './fleetModel.ts';
import { layoutSvg } from './layout.ts';
import { type EntrySummary, entryKey, parseEntryKey, type UiCondition, type UiView } from './model.ts';
import { conditionsOf } from './nodeStates.ts';
import type { UiSource } from './source.ts';
import { buildView, type LiveLookup } from './view.ts';

export interface ClusterSourceOptions {
  client: RestClient;
  /** Close the client with the source (the CLI's own client). */
  closeClient?: boolean;
  /** Only these namespaces; default: cluster-wide when the user may list Graphs cluster-wide. */
  namespaces?: readonly string[];
  /** Used when the user may not list Graphs cluster-wide (the kubeconfig context's namespace). */
  fallbackNamespace?: string;
}

/** Engine passes while informers for newly seen kinds are started (as the reconciler does). */
const MAX_PASSES = 6;
const PREPARE_TIMEOUT_MS = 15_000;
const UNKNOWN_KIND_RETRY_MS = 5_000;

type Access = { state: 'ok' } | { state: 'denied'; reason: string } | { state: 'unknown'; at: number };

function readyOf(
  obj: KubeObject,
  conditions: UiCondition[],
): Pick<EntrySummary, 'ready' | 'reason' | 'message'> {
  const ready = conditions.find((c) => c.type === 'Ready');
  const status = isRecord(obj.status) ? obj.status : {};
  const observed = typeof status.observedGeneration === 'number' ? status.observedGeneration : undefined;
  if (ready) {
    const r = ready.status === 'True' || ready.status === 'False' ? ready.status : 'Unknown';
    const stale = observed !== undefined && observed !== obj.metadata.generation;
    return {
      ready: stale && r === 'True' ? 'Unknown' : r,
      reason: stale ? 'Reconciling' : ready.reason,
      message: stale ? 'the controller has not observed the latest spec yet' : ready.message,
    };
  }
  // kro's instances and RGDs also report a `state` (ACTIVE / Active).
  if (typeof status.state === 'string') {
    const ok = /^active$/i.test(status.state);
    return { ready: ok ? 'True' : 'False', reason: status.state, message: '' };
  }
  return { ready: 'Unknown', reason: 'NotReconciled', message: 'no controller has reported on it yet' };
}

/** apiVersion and kind of an RGD's instances, from its spec (kro's defaults: group kro.run). */
export function instanceKindOf(rgd: KubeObject): { apiVersion: string; kind: string } | undefined {
  const schema = isRecord(rgd.spec) && isRecord(rgd.spec.schema) ? rgd.spec.schema : undefined;
  if (!schema || typeof schema.kind !== 'string' || typeof schema.apiVersion !== 'string') return undefined;
  const group = typeof schema.group === 'string' && schema.group !== '' ? schema.group : 'kro.run';
  return { apiVersion: `${group}/${schema.apiVersion}`, kind: schema.kind };
}

class ClusterSource implements UiSource {
  readonly description: string;
  private readonly client: RestClient;
  private readonly opts: ClusterSourceOptions;
  private readonly listeners = new Set<() => void>();
  private readonly compiler: GraphCompiler;
  private watches: WatchSet;
  private graphInformers: Informer[] = [];
  private rgdInformer: Informer | undefined;
  private crdInformer: Informer | undefined;
  /** GraphRollouts (the RGDs' fleet panels), once the cluster serves the kind. */
  private rolloutInformer: Informer | undefined;
  /** The user may not list and watch GraphRollouts: an RGD's view says so. */
  private rolloutsDenied = false;
  /** `apiVersion/kind` → informer of RGD instances. */
  private readonly instanceInformers = new Map<string, Informer>();
  private readonly access = new Map<string, Access>();
  private readonly compiled = new Map<
    string,
    { generation: number; epoch: number; outcome: CompileOutcome }
  >();
  private epoch = 0;
  private namespaces: readonly string[] | undefined;
  private notes: string[] = [];
  private readonly ready: Promise<void>;
  private closed = false;

  constructor(opts: ClusterSourceOptions) {
    this.opts = opts;
    this.client = opts.client;
    this.description = `cluster ${opts.client.server}`;
    this.compiler = new GraphCompiler(this.client);
    this.namespaces = opts.namespaces && opts.namespaces.length > 0 ? opts.namespaces : undefined;
    this.watches = this.newWatchSet();
    this.ready = this.start();
  }

  private newWatchSet(): WatchSet {
    return new WatchSet(this.client, {
      ...(this.namespaces ? { namespaces: this.namespaces } : {}),
      onEvent: () => this.changed(),
    });
  }

  private changed(): void {
    if (this.closed) return;
    for (const l of this.listeners) l();
  }

  private async may(verb: string, group: string, resource: string, namespace?: string): Promise<boolean> {
    try {
      const r = await selfSubjectAccessReview(this.client, {
        verb,
        group,
        resource,
        ...(namespace ? { namespace } : {}),
      });
      return r.allowed;
    } catch {
      // No access reviews (an old or locked-down server): try, and let the informer report.
      return true;
    }
  }

  private async mayWatch(group: string, resource: string, namespace?: string): Promise<boolean> {
    const [list, watch] = await Promise.all([
      this.may('list', group, resource, namespace),
      this.may('watch', group, resource, namespace),
    ]);
    return list && watch;
  }

  private informer(apiVersion: string, plural: string, namespace?: string): Informer {
    const inf = new Informer(this.client, {
      target: { apiVersion, plural, ...(namespace ? { namespace } : {}) },
    });
    const changed = (): void => this.changed();
    inf.addHandlers({ add: changed, update: (a, b) => a !== b && changed(), delete: changed });
    // Started unless the source was closed meanwhile (start() awaits access reviews).
    if (!this.closed) inf.start();
    return inf;
  }

  private async start(): Promise<void> {
    if (!this.namespaces && !(await this.mayWatch('kro.run', 'graphs'))) {
      const ns = this.opts.fallbackNamespace ?? 'default';
      this.namespaces = [ns];
      this.watches = this.newWatchSet();
      this.notes.push(
        `you may not list Graphs in all namespaces; showing namespace ${ns} (choose others with --namespace)`,
      );
    }
    for (const ns of this.namespaces ?? [undefined])
      this.graphInformers.push(this.informer(KRO_API_VERSION, 'graphs', ns));
    if (await this.mayWatch('kro.run', 'resourcegraphdefinitions')) {
      this.rgdInformer = this.informer(KRO_API_VERSION, 'resourcegraphdefinitions');
      this.rgdInformer.addHandlers({ add: () => void this.ensureInstanceInformers() });
    }
    if (await this.mayWatch('apiextensions.k8s.io', 'customresourcedefinitions')) {
      if (this.closed) return;
      this.crdInformer = watchCRDs(this.client, {
        discovery: this.client.discovery,
        onChange: (crd) => {
          this.epoch += 1;
          this.compiler.invalidate();
          this.watches.invalidateTypes(crdApiVersions(crd));
          for (const [k, a] of this.access) if (a.state === 'unknown') this.access.delete(k);
          void this.ensureInstanceInformers()
            .then(() => this.ensureRolloutInformer())
            .then(() => this.changed());
        },
      });
    }
    await Promise.all(this.graphInformers.map((i) => i.waitForSync(30_000).catch(() => undefined)));
    await this.rgdInformer?.waitForSync(30_000).catch(() => undefined);
    await this.ensureInstanceInformers();
    await this.ensureRolloutInformer();
    this.changed();
  }

  /** The GraphRollout informer, when the kind is served and the user may list it (else no rollout is shown). */
  private async ensureRolloutInformer(): Promise<void> {
    if (this.rolloutInformer || this.closed) return;
    try {
      await this.client.discovery.resolveKind(ROLLOUT_API_VERSION, ROLLOUT_KIND);
    } catch {
      return; // not installed (yet): the CRD watch calls us again
    }
    this.rolloutsDenied = !(await this.mayWatch(ROLLOUT_GROUP, ROLLOUT_PLURAL));
    if (this.rolloutsDenied) return;
    if (this.rolloutInformer) return;
    this.rolloutInformer = this.informer(ROLLOUT_API_VERSION, ROLLOUT_PLURAL);
  }

  /** The fleet panel of an RGD: its instances by revision and its rollout (same name as the RGD). */
  private fleet(rgd: KubeObject, instances: Informer | undefined): UiFleet {
    return fleetOf({
      rgd,
      instances: (instances?.list() ?? []).map((i) => ({
        key: entryKey({
          type: 'Instance',
          apiVersion: i.apiVersion,
          kind: i.kind,
          name: i.metadata.name ?? '',
          ...(i.metadata.namespace ? { namespace: i.metadata.namespace } : {}),
        }),
        metadata: i.metadata,
        ready: readyOf(i, conditionsOf(i)).ready,
      })),
      rollout: this.rolloutInformer?.get(undefined, rgd.metadata.name ?? ''),
    });
  }

  /** One informer per instance kind of the known RGDs, once the kind is served and readable. */
  private async ensureInstanceInformers(): Promise<void> {
    for (const rgd of this.rgdInformer?.list() ?? []) {
      const k = instanceKindOf(rgd);
      if (!k) continue;
      const key = `${k.apiVersion}/${k.kind}`;
      if (this.instanceInformers.has(key)) continue;
      try {
        const info = await this.client.discovery.resolveKind(k.apiVersion, k.kind);
        const group = k.apiVersion.includes('/') ? k.apiVersion.split('/')[0]! : '';
        const scopes = info.namespaced && this.namespaces ? this.namespaces : [undefined];
        const allowed = await Promise.all(scopes.map((ns) => this.mayWatch(group, info.plural, ns)));
        if (!allowed.every(Boolean) || this.instanceInformers.has(key)) continue;
        // One informer per scope would need a map of lists; a single scope covers every case but
        // several --namespace values, where the first is shown.
        this.instanceInformers.set(key, this.informer(k.apiVersion, info.plural, scopes[0]));
      } catch {
        // Not served (yet): the RGD controller creates the CRD; the CRD watch calls us again.
      }
    }
  }

  // ------------------------------------------------------------------ entries

  entries(): EntrySummary[] {
    const out: EntrySummary[] = [];
    for (const inf of this.graphInformers) {
      for (const g of inf.list()) {
        const namespace = g.metadata.namespace ?? '';
        out.push({
          key: entryKey({ type: 'Graph', namespace, name: g.metadata.name ?? '' }),
          type: 'Graph',
          namespace,
          name: g.metadata.name ?? '',
          kind: 'Graph',
          ...readyOf(g, conditionsOf(g)),
        });
      }
    }
    for (const rgd of this.rgdInformer?.list() ?? []) {
      const name = rgd.metadata.name ?? '';
      out.push({
        key: entryKey({ type: 'RGD', name }),
        type: 'RGD',
        name,
        kind: 'ResourceGraphDefinition',
        ...readyOf(rgd, conditionsOf(rgd)),
      });
      const k = instanceKindOf(rgd);
      const inf = k ? this.instanceInformers.get(`${k.apiVersion}/${k.kind}`) : undefined;
      for (const i of inf?.list() ?? []) {
        const namespace = i.metadata.namespace;
        out.push({
          key: entryKey({
            type: 'Instance',
            apiVersion: i.apiVersion,
            kind: i.kind,
            name: i.metadata.name ?? '',
            ...(namespace ? { namespace } : {}),
          }),
          type: 'Instance',
          ...(namespace ? { namespace } : {}),
          name: i.metadata.name ?? '',
          kind: i.kind,
          rgd: name,
          ...readyOf(i, conditionsOf(i)),
        });
      }
    }
    const order = { Graph: 0, RGD: 1, Instance: 2 } as const;
    return out.sort(
      (a, b) =>
        order[a.type] - order[b.type] ||
        (a.namespace ?? '').localeCompare(b.namespace ?? '') ||
        a.name.localeCompare(b.name),
    );
  }

  // ------------------------------------------------------------------ views

  private async compile(obj: KubeObject): Promise<CompileOutcome> {
    const uid = obj.metadata.uid ?? `${obj.metadata.namespace}/${obj.metadata.name}`;
    const generation = obj.metadata.generation ?? 0;
    const hit = this.compiled.get(uid);
    if (hit && hit.generation === generation && hit.epoch === this.epoch && !hit.outcome.unknownKind) {
      return hit.outcome;
    }
    if (hit?.outcome.unknownKind) this.compiler.invalidate();
    const outcome = await this.compiler.compile(obj as Record<string, unknown>);
    this.compiled.set(uid, { generation, epoch: this.epoch, outcome });
    return outcome;
  }

  /** Starts (after an access check) the informers one evaluation found missing. */
  private async prepare(apiVersion: string, kind: string, namespace: string | undefined): Promise<void> {
    let info: { plural: string; namespaced: boolean };
    try {
      info = await this.client.discovery.resolveKind(apiVersion, kind);
    } catch {
      this.access.set(`${apiVersion}/${kind}|${namespace ?? '*'}`, { state: 'unknown', at: Date.now() });
      return;
    }
    const scope = info.namespaced && this.namespaces ? namespace : undefined;
    const key = `${apiVersion}/${kind}|${scope ?? '*'}`;
    const known = this.access.get(key);
    if (known && (known.state !== 'unknown' || Date.now() - known.at < UNKNOWN_KIND_RETRY_MS)) return;
    const group = apiVersion.includes('/') ? apiVersion.split('/')[0]! : '';
    if (!(await this.mayWatch(group, info.plural, scope))) {
      this.access.set(key, {
        state: 'denied',
        reason: `you may not list and watch ${info.plural}${scope ? ` in ${scope}` : ' in all namespaces'}`,
      });
      return;
    }
    this.access.set(key, { state: 'ok' });
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.watches.prepare(apiVersion, kind, [namespace]),
      new Promise<void>((res) => {
        timer = setTimeout(res, PREPARE_TIMEOUT_MS);
      }),
    ]).finally(() => clearTimeout(timer));
  }

  private accessOf(id: ObjectIdentity): Access | undefined {
    return (
      this.access.get(`${id.apiVersion}/${id.kind}|${id.namespace ?? '*'}`) ??
      this.access.get(`${id.apiVersion}/${id.kind}|*`)
    );
  }

  private async evaluateOn(
    outcome: CompileOutcome,
    namespace: string,
    instance?: KubeObject,
  ): Promise<EvaluationResult | undefined> {
    const compiled = outcome.compiled;
    if (!outcome.accepted || !compiled) return undefined;
    let result: EvaluationResult | undefined;
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const interest = newInterest();
      result = evaluate(compiled, {
        observed: this.watches.view(interest),
        namespace,
        ...(instance ? { instance: instance as Record<string, unknown> } : {}),
      });
      const todo = [...interest.missing.values()].filter((m) => {
        const a = this.accessOf({
          apiVersion: m.apiVersion,
          kind: m.kind,
          name: '',
          namespace: m.namespace ?? namespace,
        });
        return a === undefined || (a.state === 'unknown' && Date.now() - a.at >= UNKNOWN_KIND_RETRY_MS);
      });
      if (todo.length === 0) break;
      await Promise.all(todo.map((m) => this.prepare(m.apiVersion, m.kind, m.namespace ?? namespace)));
    }
    return result;
  }

  private live(): LiveLookup {
    return (id) => {
      const a = this.accessOf(id);
      if (a?.state === 'denied') return { state: 'unreadable' };
      const obj = this.watches.peek(id);
      return obj ? { state: 'found', obj } : { state: 'missing' };
    };
  }

  async view(key: string): Promise<UiView | undefined> {
    await this.ready;
    const k = parseEntryKey(key);
    if (!k) return undefined;
    if (k.type === 'Graph') {
      const g = this.graphInformers.map((i) => i.get(k.namespace, k.name)).find((x) => x !== undefined);
      if (!g) return undefined;
      const outcome = await this.compile(g);
      const namespace = g.metadata.namespace ?? 'default';
      const result = await this.evaluateOn(outcome, namespace);
      const title = kubectlNameIn({
        apiVersion: g.apiVersion || KRO_API_VERSION,
        kind: g.kind || 'Graph',
        namespace,
        name: k.name,
      });
      return this.finish(key, 'Graph', title, g, outcome, result);
    }
    if (k.type === 'RGD') {
      const rgd = this.rgdInformer?.get(undefined, k.name);
      if (!rgd) return undefined;
      const outcome = await this.compile(rgd);
      const kind = instanceKindOf(rgd);
      const inf = kind ? this.instanceInformers.get(`${kind.apiVersion}/${kind.kind}`) : undefined;
      const count = inf?.size ?? 0;
      const note = kind
        ? `${count} instance(s) of ${kind.kind} (${kind.apiVersion})${inf ? '' : ' — the kind is not served (yet), or you may not list it'}; choose an instance for node states`
        : 'spec.schema has no kind';
      const fleetNote = this.rolloutsDenied ? ' · you may not list GraphRollouts: no rollout is shown' : '';
      const title = kubectlName({
        apiVersion: rgd.apiVersion || KRO_API_VERSION,
        kind: rgd.kind || 'ResourceGraphDefinition',
        name: k.name,
      });
      const view = await this.finish(key, 'RGD', title, rgd, outcome, undefined, note + fleetNote);
      return { ...view, fleet: this.fleet(rgd, inf) };
    }
    const inf = this.instanceInformers.get(`${k.apiVersion}/${k.kind}`);
    const instance = inf?.get(k.namespace, k.name);
    if (!instance) return undefined;
    const rgd = (this.rgdInformer?.list() ?? []).find((r) => {
      const ik = instanceKindOf(r);
      return ik !== undefined && ik.apiVersion === k.apiVersion && ik.kind === k.kind;
    });
    if (!rgd) return undefined;
    const outcome = await this.compile(rgd);
    const result = await this.evaluateOn(outcome, k.namespace ?? 'default', instance);
    const title = `${kubectlNameIn({ apiVersion: k.apiVersion ?? '', kind: k.kind ?? '', namespace: k.namespace, name: k.name })} (RGD ${rgd.metadata.name})`;
    return this.finish(key, 'Instance', title, instance, outcome, result);
  }

  private async finish(
    key: string,
    type: UiView['type'],
    title: string,
    obj: KubeObject,
    outcome: CompileOutcome,
    result: EvaluationResult | undefined,
    note?: string,
  ): Promise<UiView> {
    const notes = [...this.notes, ...(note ? [note] : [])];
    const denied = [...this.access.values()].flatMap((a) => (a.state === 'denied' ? [a.reason] : []));
    if (denied.length > 0) notes.push(`some objects are hidden from you: ${[...new Set(denied)].join('; ')}`);
    return buildView({
      key,
      type,
      title,
      svg: outcome.compiled ? await layoutSvg(outcome.compiled) : '',
      ...(outcome.compiled ? { graph: outcome.compiled } : {}),
      diagnostics: outcome.diagnostics,
      ...(outcome.source ? { source: outcome.source } : {}),
      ...(result ? { result } : {}),
      live: this.live(),
      conditions: conditionsOf(obj),
      ...(notes.length > 0 ? { note: notes.join(' · ') } : {}),
    });
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    // Not waiting for start(): its informer waits can take long; what it starts later stays stopped.
    this.closed = true;
    await Promise.all([
      ...this.graphInformers.map((i) => i.stop()),
      ...[...this.instanceInformers.values()].map((i) => i.stop()),
      this.rgdInformer?.stop(),
      this.crdInformer?.stop(),
      this.rolloutInformer?.stop(),
      this.watches.stop(),
    ]);
    if (this.opts.closeClient) this.client.close();
  }
}

export function clusterSource(opts: ClusterSourceOptions): UiSource {
  return new ClusterSource(opts);
}

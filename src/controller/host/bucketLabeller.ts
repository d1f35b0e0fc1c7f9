/**
 * The coordinator's bucket labeller (design/sharding.md §2): it watches, metadata only, the Graphs and
 * the top-level instances of every generated kind that have no `kgraph.dev/bucket` label yet — the
 * informers select exactly those, so an object leaves the cache as soon as it is labelled — and labels
 * each with the bucket of its UID through a merge patch under its own field manager. The patch names
 * the UID (a precondition: a deleted and recreated object is never labelled with the old bucket) and
 * never creates anything. Nested instances and children get the label from the stamp instead. With the
 * planes, krop's ConsumerCluster registrations (cluster-scoped) are labelled too: a replica serves the
 * consumer clusters of its buckets (design/sharding.md §6).
 */
import type { Logger } from 'pino';
import { Informer, isApiError, type KubeObject, type RestClient, WorkQueue } from '../../kube/index.ts';
import { bucketOf, LABEL_BUCKET } from '../core/bucket.ts';
import { LABEL_NODE_ID } from '../core/names.ts';
import { CONSUMER_PLURAL, KROP_API_VERSION } from '../planes/kropApi.ts';
import { generatedKindOf, LABEL_RGD_NAME } from '../rgd/names.ts';

export const BUCKET_MANAGER = 'kgraph-shard-coordinator';

interface Kind {
  apiVersion: string;
  plural: string;
}

export class BucketLabeller {
  private readonly client: RestClient;
  private readonly log: Logger;
  private readonly graphs: boolean;
  private readonly planes: boolean;
  private readonly namespaces: readonly (string | undefined)[];
  private readonly informers = new Map<string, Informer>();
  private crds: Informer | undefined;
  private readonly queue = new WorkQueue<string>();
  private readonly pending = new Map<string, { kind: Kind; obj: KubeObject }>();
  private running: Promise<void> | undefined;
  /** Objects labelled since start (tests, metrics). */
  labelled = 0;

  constructor(
    client: RestClient,
    opts: {
      log: Logger;
      graphs: boolean;
      rgds: boolean;
      /** Label ConsumerCluster registrations (the planes controller runs). @default false */
      planes?: boolean;
      namespaces?: readonly string[];
    },
  ) {
    this.client = client;
    this.namespaces = opts.namespaces?.length ? opts.namespaces : [undefined];
    this.log = opts.log;
    this.graphs = opts.graphs;
    this.planes = opts.planes === true;
    if (opts.rgds) {
      // Generated CRDs only (labelled with their RGD): each serves a kind of top-level instances.
      this.crds = new Informer(client, {
        target: { apiVersion: 'apiextensions.k8s.io/v1', plural: 'customresourcedefinitions' },
        labelSelector: LABEL_RGD_NAME,
        onError: (e) => this.log.debug({ err: String(e) }, 'bucket labeller CRD watch error'),
      });
      this.crds.addHandlers({
        add: (crd) => this.watchKindOf(crd),
        update: (_o, crd) => this.watchKindOf(crd),
      });
    }
  }

  async start(): Promise<void> {
    if (this.graphs) this.watch({ apiVersion: 'kro.run/v1alpha1', plural: 'graphs' }, `!${LABEL_BUCKET}`);
    // Cluster-scoped: one informer, whatever namespaces the replicas reconcile.
    if (this.planes)
      this.watchIn({ apiVersion: KROP_API_VERSION, plural: CONSUMER_PLURAL }, `!${LABEL_BUCKET}`, undefined);
    this.crds?.start();
    this.running = this.queue.run(
      (key) => this.label(key),
      4,
      (key, e) => this.log.warn({ object: key, err: String(e) }, 'bucket label failed'),
    );
    await Promise.all(
      [...this.informers.values(), ...(this.crds ? [this.crds] : [])].map((i) => i.waitForSync(60_000)),
    );
  }

  async stop(): Promise<void> {
    await this.queue.shutdown();
    await this.running;
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
    await this.crds?.stop();
  }

  /** Objects still waiting for their label (every cached one). */
  unlabelled(): number {
    let n = 0;
    for (const i of this.informers.values()) n += i.size;
    return n;
  }

  private watchKindOf(crd: KubeObject): void {
    const kind = generatedKindOf(crd);
    if (!kind) return;
    // Instances that are children of another instance carry the node-id label and get the bucket from the stamp.
    this.watch({ apiVersion: kind.apiVersion, plural: kind.plural }, `!${LABEL_BUCKET},!${LABEL_NODE_ID}`);
  }

  private watch(kind: Kind, selector: string): void {
    for (const ns of this.namespaces) this.watchIn(kind, selector, ns);
  }

  private watchIn(kind: Kind, selector: string, namespace: string | undefined): void {
    const key = `${kind.apiVersion}/${kind.plural}`;
    if (this.informers.has(`${key}|${namespace ?? '*'}`)) return;
    const inf = new Informer(this.client, {
      target: { ...kind, ...(namespace ? { namespace } : {}) },
      labelSelector: selector,
      metadataOnly: true,
      onError: (e) => this.log.debug({ err: String(e), kind: key }, 'bucket labeller watch error'),
    });
    const enqueue = (obj: KubeObject): void => {
      const k = `${key}|${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
      this.pending.set(k, { kind, obj });
      this.queue.add(k);
    };
    inf.addHandlers({ add: enqueue, update: (_o, n) => enqueue(n) });
    this.informers.set(`${key}|${namespace ?? '*'}`, inf);
    inf.start();
  }

  private async label(key: string): Promise<undefined> {
    const p = this.pending.get(key);
    if (!p) return undefined;
    // Kept until done: a failed patch is retried by the queue with the object it was for.
    const done = (): undefined => {
      if (this.pending.get(key) === p) this.pending.delete(key);
      return undefined;
    };
    const { kind, obj } = p;
    const uid = obj.metadata.uid ?? '';
    if (!uid || obj.metadata.labels?.[LABEL_BUCKET] !== undefined) return done();
    try {
      await this.client.patch(
        {
          apiVersion: kind.apiVersion,
          plural: kind.plural,
          namespace: obj.metadata.namespace,
          name: obj.metadata.name ?? '',
        },
        { metadata: { uid, labels: { [LABEL_BUCKET]: String(bucketOf(uid)) } } },
        { type: 'merge', fieldManager: BUCKET_MANAGER },
      );
      this.labelled++;
    } catch (e) {
      // Gone, or replaced by another object (the UID precondition): its own event brings the new one.
      if (isApiError(e) && (e.code === 404 || e.code === 409)) return done();
      throw e;
    }
    return done();
  }
}

/**
 * Names the RGD side writes (design/rgd.md §19, design/graph.md §22.2, §23.2–§23.5): the RGD API, the instance
 * finalizer and field manager, the labels and annotations stamped on instances and their children,
 * and the ApplySet id of an instance (KEP-3659). Pure.
 */
import { createHash } from 'node:crypto';
import { KRO_API_VERSION } from '../../graph/kroApi.ts';

export const RGD_API_VERSION = KRO_API_VERSION;
export const RGD_KIND = 'ResourceGraphDefinition';
export const RGD_PLURAL = 'resourcegraphdefinitions';
export const RGD_CRD_NAME = 'resourcegraphdefinitions.kro.run';

// GraphRevisions (design/rgd.md §19.5): immutable snapshots of an RGD's spec, as kro serves them.
export const GRAPH_REVISION_GROUP = 'internal.kro.run';
export const GRAPH_REVISION_API_VERSION = `${GRAPH_REVISION_GROUP}/v1alpha1`;
export const GRAPH_REVISION_KIND = 'GraphRevision';
export const GRAPH_REVISION_PLURAL = 'graphrevisions';
export const GRAPH_REVISION_CRD_NAME = `${GRAPH_REVISION_PLURAL}.${GRAPH_REVISION_GROUP}`;
/** The normalised spec hash a revision was issued for (for `kubectl get gr -L`; kgraph reads the snapshot). */
export const LABEL_GRAPH_REVISION_HASH = 'kro.run/graph-revision-hash';

/** The version kgraph writes into `kro.run/kro-version` and the ApplySet tooling annotation. */
export const KGRAPH_VERSION = '0.1.0';

/** Instance finalizer (design/graph.md §23.5) and the one field manager of every instance child (design/graph.md §1). */
export const INSTANCE_FINALIZER = 'kro.run/finalizer';
export const APPLYSET_MANAGER = 'kro.run/applyset';

export const ANNOTATION_ALLOW_BREAKING = 'kro.run/allow-breaking-changes';
/** `kro.run/reconcile: suspended` on an instance stops its reconciliation (design/rgd.md §20.4). */
export const ANNOTATION_RECONCILE = 'kro.run/reconcile';

// design/graph.md §23.2: children
export const LABEL_OWNED = 'kro.run/owned';
export const LABEL_KRO_VERSION = 'kro.run/kro-version';
export const LABEL_INSTANCE_ID = 'kro.run/instance-id';
export const LABEL_INSTANCE_NAME = 'kro.run/instance-name';
export const LABEL_INSTANCE_NAMESPACE = 'kro.run/instance-namespace';
export const LABEL_INSTANCE_GROUP = 'kro.run/instance-group';
export const LABEL_INSTANCE_VERSION = 'kro.run/instance-version';
export const LABEL_INSTANCE_KIND = 'kro.run/instance-kind';
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const ANNOTATION_INSTANCE_NAME = 'internal.kro.run/instance-name';
export const ANNOTATION_INSTANCE_GROUP = 'internal.kro.run/instance-group';

// design/graph.md §23.3: instances (and, for ownership, the generated CRD)
export const LABEL_RGD_ID = 'kro.run/resource-graph-definition-id';
export const LABEL_RGD_NAME = 'kro.run/resource-graph-definition-name';

/** The kind of instances a generated CRD (labelled `LABEL_RGD_NAME`) serves, at its storage version. */
export interface GeneratedKind {
  apiVersion: string;
  plural: string;
  namespaced: boolean;
}

export function generatedKindOf(crd: object): GeneratedKind | undefined {
  const spec = (crd as { spec?: unknown }).spec as
    | {
        group?: string;
        scope?: string;
        names?: { plural?: string };
        versions?: { name: string; storage?: boolean }[];
      }
    | undefined;
  const version = spec?.versions?.find((v) => v.storage) ?? spec?.versions?.[0];
  if (!spec?.group || !spec.names?.plural || !version) return undefined;
  return {
    apiVersion: `${spec.group}/${version.name}`,
    plural: spec.names.plural,
    namespaced: spec.scope !== 'Cluster',
  };
}

// KEP-3659 ApplySet
export const LABEL_APPLYSET_ID = 'applyset.kubernetes.io/id';
export const LABEL_APPLYSET_PART_OF = 'applyset.kubernetes.io/part-of';
export const ANNOTATION_APPLYSET_TOOLING = 'applyset.kubernetes.io/tooling';
export const ANNOTATION_APPLYSET_GKS = 'applyset.kubernetes.io/contains-group-kinds';
export const ANNOTATION_APPLYSET_NAMESPACES = 'applyset.kubernetes.io/additional-namespaces';
export const ANNOTATION_APPLYSET_HASH = 'internal.kro.run/applyset-inventory-hash';

export const APPLYSET_TOOLING = `kgraph/v${KGRAPH_VERSION}`;

/**
 * The ApplySet id of an instance: `applyset-<base64url(sha256(name.namespace.kind.group))>-v1`, the
 * base64 without padding as KEP-3659 prescribes (cluster-scoped instances have an empty namespace).
 */
export function applySetId(name: string, namespace: string, kind: string, group: string): string {
  const digest = createHash('sha256').update(`${name}.${namespace}.${kind}.${group}`).digest('base64url');
  return `applyset-${digest}-v1`;
}

/**
 * True when the instance carries `kro.run/reconcile: suspended`, or kro 0.9.0's `disabled`, in any
 * letter case, as kro reads it.
 */
export function isSuspended(annotations: Record<string, string> | undefined): boolean {
  const value = annotations?.[ANNOTATION_RECONCILE]?.toLowerCase();
  return value === 'suspended' || value === 'disabled';
}

/** The manager of the instance's own metadata (labels, ApplySet annotations, finalizer). */
export const PARENT_MANAGER = 'kro.run/applyset-parent';

/**
 * The ServiceAccount an instance reads and writes as, from the RGD's `spec.defaultServiceAccounts`
 * (docs/rgd.md, "Trust model"): for an instance in a namespace, the entry for that namespace, else `*`,
 * a ServiceAccount of that namespace; for a cluster-scoped instance (`namespace` ''), the `*` entry,
 * `NAMESPACE/NAME` (the compiler allows nothing else there). Undefined — the RGD has no such map, or it
 * maps neither — means the controller's own identity, as kro.
 */
export function instanceServiceAccount(
  defaultServiceAccounts: Readonly<Record<string, string>> | undefined,
  namespace: string,
): { namespace: string; name: string } | undefined {
  if (!defaultServiceAccounts) return undefined;
  if (namespace === '') {
    const ref = defaultServiceAccounts['*'] ?? '';
    const slash = ref.indexOf('/');
    return slash > 0 && slash < ref.length - 1
      ? { namespace: ref.slice(0, slash), name: ref.slice(slash + 1) }
      : undefined;
  }
  const name = defaultServiceAccounts[namespace] ?? defaultServiceAccounts['*'];
  return name === undefined ? undefined : { namespace, name };
}

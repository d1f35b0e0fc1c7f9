/**
 * What the registrar publishes for one blueprint and the serving loops read (design/planes.md §14.1 step 8):
 * the compiled graph, the generated instance API and CRD, the claims.
 */
import type { CompiledGraph } from '../../graph/model.ts';
import type { KubeObject, RestClient } from '../../kube/index.ts';
import type { TypedClaim } from './claims.ts';

export interface PublishedBlueprint {
  name: string;
  uid: string;
  specHash: string;
  compiled: CompiledGraph;
  exportName: string;
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  claims: TypedClaim[];
  /** The instance CRD applied in every selected consumer cluster. */
  crd: KubeObject;
  /** The blueprint's labels (for `blueprintSelector`). */
  labels: Record<string, string>;
}

/** A connected, verified consumer cluster. */
export interface Connection {
  /** The ConsumerCluster name. */
  name: string;
  clusterID: string;
  client: RestClient;
  identity: { username: string; groups: string[] };
}

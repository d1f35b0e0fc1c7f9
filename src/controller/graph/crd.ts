/**
 * The Graph CustomResourceDefinition (kro.run/v1alpha1, kind Graph, namespaced) with the validation
 * design/graph.md §2 requires of it, and its installation (server-side apply, then wait until it is
 * Established and served). `deploy/crds/graphs.kro.run.yaml` is generated from `graphCrd()`.
 */
import type { KubeObject, RestClient } from '../../kube/index.ts';
import { type InstallOptions, waitForCrd } from '../core/crdReady.ts';
import { forEachSchema, freeObject, kroCrd, objectRefSchema, stringList } from '../core/crdSchemaParts.ts';
import { CONTROLLER_MANAGER } from '../core/names.ts';
import { GRAPH_CRD_NAME, GRAPH_KIND, GRAPH_PLURAL } from './names.ts';
import { watchNodeSchema } from './watchNode.ts';

const NODE_ID_PATTERN = '^[A-Za-z][A-Za-z0-9]*$';
const DNS1123_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
export const EXACTLY_ONE_KIND_MESSAGE = 'exactly one of template, ref, watch, def, graph, patch must be set';

function nodeSchema(): Record<string, unknown> {
  return {
    type: 'object',
    required: ['id'],
    properties: {
      id: { type: 'string', pattern: NODE_ID_PATTERN },
      template: freeObject,
      def: freeObject,
      patch: freeObject,
      graph: freeObject,
      ref: objectRefSchema({ nameMinLength: 1 }),
      watch: watchNodeSchema(),
      includeWhen: stringList,
      readyWhen: stringList,
      forEach: forEachSchema,
    },
    'x-kubernetes-validations': [
      {
        rule: [
          '(has(self.template) ? 1 : 0) + (has(self.ref) ? 1 : 0) + (has(self.watch) ? 1 : 0) + (has(self.def) ? 1 : 0)',
          '+ (has(self.graph) ? 1 : 0) + (has(self.patch) ? 1 : 0) == 1',
        ].join(' '),
        message: EXACTLY_ONE_KIND_MESSAGE,
      },
    ],
  };
}

/** The Graph CRD as an object (what `kgraph install` and the controller apply). */
export function graphCrd(): KubeObject {
  return kroCrd({
    name: GRAPH_CRD_NAME,
    scope: 'Namespaced',
    names: { plural: GRAPH_PLURAL, singular: 'graph', kind: GRAPH_KIND, listKind: 'GraphList' },
    printerColumns: [
      { name: 'READY', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    spec: {
      type: 'object',
      required: ['nodes'],
      properties: {
        serviceAccountName: { type: 'string', maxLength: 253, pattern: DNS1123_SUBDOMAIN },
        nodes: {
          type: 'array',
          minItems: 1,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['id'],
          items: nodeSchema(),
        },
      },
    },
    status: freeObject,
  });
}

/** Applies the Graph CRD (server-side, forced: the controller owns it) and waits until it is served. */
export async function installGraphCrd(client: RestClient, opts: InstallOptions = {}): Promise<KubeObject> {
  const crd = graphCrd();
  await client.apply(crd, { fieldManager: opts.fieldManager ?? CONTROLLER_MANAGER, force: true });
  return waitForCrd(client, GRAPH_CRD_NAME, opts.timeoutMs ?? 60_000);
}

/** Polls a CRD until Established=True, then until discovery lists its plural. */

/**
 * The ResourceGraphDefinition CRD (kro.run/v1alpha1, cluster-scoped, short name `rgd`,
 * design/rgd.md §19.1–§19.2) with its printer columns, and its installation. The structural
 * rules the compiler checks with located diagnostics (id naming, references, types) are not repeated
 * here; the CRD enforces only what kro's API enforces at admission: kind and version patterns, the
 * immutable identity fields, and exactly one of template / externalRef per resource.
 * `deploy/crds/resourcegraphdefinitions.kro.run.yaml` is generated from `rgdCrd()`.
 */
import type { KubeObject, RestClient } from '../../kube/index.ts';
import { type InstallOptions, waitForCrd } from '../core/crdReady.ts';
import { forEachSchema, freeObject, kroCrd, objectRefSchema, stringList } from '../core/crdSchemaParts.ts';
import { CONTROLLER_MANAGER } from '../core/names.ts';
import {
  GRAPH_REVISION_CRD_NAME,
  GRAPH_REVISION_GROUP,
  GRAPH_REVISION_KIND,
  GRAPH_REVISION_PLURAL,
  LABEL_GRAPH_REVISION_HASH,
  RGD_CRD_NAME,
  RGD_KIND,
  RGD_PLURAL,
} from './names.ts';
import { graphRolloutCrd } from './rollout/crd.ts';
import { ROLLOUT_CRD_NAME } from './rollout/names.ts';

const immutable = (what: string) => [{ rule: 'self == oldSelf', message: `${what} is immutable` }];
const RFC1035_LABEL = '^[a-z]([-a-z0-9]*[a-z0-9])?$';
const kubectlAliases = {
  type: 'array',
  maxItems: 32,
  'x-kubernetes-list-type': 'set',
  items: { type: 'string', pattern: RFC1035_LABEL, maxLength: 63 },
};

export function schemaSection(): Record<string, unknown> {
  return {
    type: 'object',
    required: ['kind', 'apiVersion'],
    properties: {
      kind: {
        type: 'string',
        pattern: '^[A-Z][a-zA-Z0-9]{0,62}$',
        'x-kubernetes-validations': immutable('kind'),
      },
      apiVersion: {
        type: 'string',
        pattern: '^v[0-9]+(alpha[0-9]+|beta[0-9]+)?$',
        'x-kubernetes-validations': immutable('apiVersion'),
      },
      group: { type: 'string', default: 'kro.run', 'x-kubernetes-validations': immutable('group') },
      scope: {
        type: 'string',
        enum: ['Namespaced', 'Cluster'],
        default: 'Namespaced',
        'x-kubernetes-validations': immutable('scope'),
      },
      spec: freeObject,
      types: freeObject,
      status: freeObject,
      additionalPrinterColumns: { type: 'array', items: freeObject },
      // kro's API: short names and categories are distinct lower-case DNS labels, at most 32 of each.
      shortNames: kubectlAliases,
      categories: kubectlAliases,
      metadata: {
        type: 'object',
        properties: {
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          annotations: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
    },
  };
}

export function resourceSchema(): Record<string, unknown> {
  return {
    type: 'object',
    required: ['id'],
    properties: {
      id: { type: 'string', minLength: 1 },
      template: freeObject,
      externalRef: objectRefSchema(),
      readyWhen: stringList,
      includeWhen: stringList,
      forEach: forEachSchema,
    },
    'x-kubernetes-validations': [
      {
        rule: '(has(self.template) ? 1 : 0) + (has(self.externalRef) ? 1 : 0) == 1',
        message: 'exactly one of template or externalRef must be set',
      },
    ],
  };
}

export const conditionsSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      type: { type: 'string' },
      status: { type: 'string' },
      reason: { type: 'string' },
      message: { type: 'string' },
      observedGeneration: { type: 'integer' },
      lastTransitionTime: { type: 'string', format: 'date-time' },
    },
  },
};

/** An RGD's `spec` (also the `spec.snapshot.spec` of its GraphRevisions). */
export function rgdSpecSchema(): Record<string, unknown> {
  return {
    type: 'object',
    required: ['schema'],
    properties: {
      schema: schemaSection(),
      resources: { type: 'array', items: resourceSchema() },
      // kgraph's extension (docs/rgd.md, "Trust model"): instance namespace or "*" →
      // the ServiceAccount (in that namespace; NAMESPACE/NAME for a cluster-scoped RGD)
      // the instance reads and writes as.
      defaultServiceAccounts: {
        type: 'object',
        additionalProperties: { type: 'string' },
      },
    },
  };
}

/** `status.resources`: each resource's id and the ids it depends on (RGD and GraphRevision). */
export const resourcesInfoSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      dependencies: {
        type: 'array',
        items: { type: 'object', properties: { id: { type: 'string' } } },
      },
    },
  },
};

/** The RGD CRD as an object (what `kgraph install` and the controller apply). */
export function rgdCrd(): KubeObject {
  return kroCrd({
    name: RGD_CRD_NAME,
    scope: 'Cluster',
    names: {
      plural: RGD_PLURAL,
      singular: 'resourcegraphdefinition',
      kind: RGD_KIND,
      listKind: `${RGD_KIND}List`,
      shortNames: ['rgd'],
    },
    printerColumns: [
      { name: 'APIVERSION', type: 'string', jsonPath: '.spec.schema.apiVersion' },
      { name: 'KIND', type: 'string', jsonPath: '.spec.schema.kind' },
      { name: 'STATE', type: 'string', jsonPath: '.status.state' },
      { name: 'READY', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'TOPOLOGICALORDER', type: 'string', priority: 1, jsonPath: '.status.topologicalOrder' },
      { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    spec: rgdSpecSchema(),
    status: {
      type: 'object',
      properties: {
        state: { type: 'string' },
        topologicalOrder: stringList,
        conditions: conditionsSchema,
        resources: resourcesInfoSchema,
        lastIssuedRevision: { type: 'integer' },
      },
    },
  });
}

/**
 * The GraphRevision CRD (internal.kro.run/v1alpha1, cluster-scoped, short name `gr`, design/rgd.md §19.5):
 * kro's shape, so kro's tooling and manifests read kgraph's revisions. The spec is immutable as a whole;
 * lists select by `spec.snapshot.name` (the RGD's name, which outlives a deleted and re-created RGD).
 */
export function graphRevisionCrd(): KubeObject {
  return kroCrd({
    name: GRAPH_REVISION_CRD_NAME,
    group: GRAPH_REVISION_GROUP,
    scope: 'Cluster',
    names: {
      plural: GRAPH_REVISION_PLURAL,
      singular: 'graphrevision',
      kind: GRAPH_REVISION_KIND,
      listKind: `${GRAPH_REVISION_KIND}List`,
      shortNames: ['gr'],
    },
    printerColumns: [
      { name: 'RGD', type: 'string', priority: 1, jsonPath: '.spec.snapshot.name' },
      { name: 'REVISION', type: 'integer', jsonPath: '.spec.revision' },
      {
        name: 'HASH',
        type: 'string',
        priority: 1,
        jsonPath: `.metadata.labels.${LABEL_GRAPH_REVISION_HASH.replaceAll('.', '\\.')}`,
      },
      { name: 'READY', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    selectableFields: ['.spec.snapshot.name'],
    spec: {
      type: 'object',
      required: ['revision', 'snapshot'],
      properties: {
        revision: { type: 'integer', format: 'int64', minimum: 1 },
        snapshot: {
          type: 'object',
          required: ['name', 'generation', 'spec'],
          properties: {
            name: { type: 'string' },
            generation: { type: 'integer', format: 'int64' },
            spec: rgdSpecSchema(),
          },
        },
      },
      'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'spec is immutable' }],
    },
    status: {
      type: 'object',
      properties: {
        topologicalOrder: stringList,
        conditions: conditionsSchema,
        resources: resourcesInfoSchema,
      },
    },
  });
}

/**
 * Applies the RGD CRD and the GraphRevision and GraphRollout CRDs that go with it (server-side, forced) and waits until
 * all three are served; returns the RGD CRD.
 */
export async function installRgdCrd(client: RestClient, opts: InstallOptions = {}): Promise<KubeObject> {
  const fieldManager = opts.fieldManager ?? CONTROLLER_MANAGER;
  await client.apply(rgdCrd(), { fieldManager, force: true });
  await client.apply(graphRevisionCrd(), { fieldManager, force: true });
  await client.apply(graphRolloutCrd(), { fieldManager, force: true });
  const timeoutMs = opts.timeoutMs ?? 60_000;
  await waitForCrd(client, GRAPH_REVISION_CRD_NAME, timeoutMs);
  await waitForCrd(client, ROLLOUT_CRD_NAME, timeoutMs);
  return waitForCrd(client, RGD_CRD_NAME, timeoutMs);
}

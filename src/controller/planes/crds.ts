/**
 * The two APIs of the management cluster (design/planes.md §2, §3.3.1): the krop blueprint
 * (`krop.opendefense.cloud/v1alpha1 ResourceGraphDefinition`, kro's RGD spec plus `target`, enum-validated)
 * and `ConsumerCluster` registrations. `kgraph install --planes` and the planes controller apply them.
 * The kro RGD CRD's schema fragments are reused so both RGD flavours admit the same shapes.
 */
import type { KubeObject, RestClient } from '../../kube/index.ts';
import { type InstallOptions, waitForCrd } from '../core/crdReady.ts';
import { freeObject } from '../core/crdSchemaParts.ts';
import { conditionsSchema, resourceSchema, schemaSection } from '../rgd/crd.ts';
import {
  BLUEPRINT_CRD_NAME,
  BLUEPRINT_KIND,
  BLUEPRINT_PLURAL,
  CONSUMER_CRD_NAME,
  CONSUMER_KIND,
  CONSUMER_PLURAL,
  KROP_GROUP,
  REGISTRAR_MANAGER,
} from './kropApi.ts';

const labels = { 'app.kubernetes.io/part-of': 'kgraph' };
const str = { type: 'string' };
const writeOnce = (what: string) => [
  { rule: 'oldSelf == "" || self == oldSelf', message: `${what} is immutable once set` },
];

function blueprintResource(): Record<string, unknown> {
  const r = resourceSchema() as { properties: Record<string, unknown> };
  return {
    ...r,
    properties: { ...r.properties, target: { type: 'string', enum: ['consumer', 'provider', 'host', ''] } },
  };
}

function blueprintSchemaSection(): Record<string, unknown> {
  const s = schemaSection() as { properties: Record<string, Record<string, unknown>> };
  return {
    ...s,
    properties: { ...s.properties, group: { ...s.properties.group, default: KROP_GROUP } },
  };
}

const READY_COLUMNS = [
  { name: 'READY', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
  { name: 'REASON', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason' },
  { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

/** A cluster-scoped krop CRD with one version, a status subresource and a required `spec`. */
function clusterScopedCrd(
  name: string,
  names: { plural: string; singular: string; kind: string; shortName: string },
  columns: Record<string, unknown>[],
  spec: Record<string, unknown>,
  status: Record<string, unknown>,
): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name, labels },
    spec: {
      group: KROP_GROUP,
      scope: 'Cluster',
      names: {
        plural: names.plural,
        singular: names.singular,
        kind: names.kind,
        listKind: `${names.kind}List`,
        shortNames: [names.shortName],
      },
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [...columns, ...READY_COLUMNS],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              required: ['spec'],
              properties: {
                apiVersion: str,
                kind: str,
                metadata: { type: 'object' },
                spec,
                status: { type: 'object', properties: { ...status, conditions: conditionsSchema } },
              },
            },
          },
        },
      ],
    },
  };
}

/** The blueprint CRD (cluster-scoped, short name `rgd`, status subresource). */
export function blueprintCrd(): KubeObject {
  return clusterScopedCrd(
    BLUEPRINT_CRD_NAME,
    { plural: BLUEPRINT_PLURAL, singular: 'resourcegraphdefinition', kind: BLUEPRINT_KIND, shortName: 'rgd' },
    [
      { name: 'EXPORT', type: 'string', jsonPath: '.status.exportedAPI' },
      { name: 'HASH', type: 'string', jsonPath: '.status.observedSpecHash' },
    ],
    {
      type: 'object',
      required: ['schema'],
      properties: {
        schema: blueprintSchemaSection(),
        resources: { type: 'array', items: blueprintResource() },
      },
    },
    {
      exportedAPI: str,
      observedSpecHash: str,
      claims: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            group: str,
            resource: str,
            verbs: { type: 'array', items: str },
            scope: str,
            // kcp: the identity of the export that owns a foreign type ('' for built-in types).
            identityHash: str,
          },
        },
      },
      rbac: { type: 'object', properties: { serve: str, claims: str } },
      // kcp: the APIExport's identity and the APIResourceSchema it serves.
      identityHash: str,
      apiResourceSchema: str,
    },
  );
}

/** The ConsumerCluster CRD (cluster-scoped): a registered consumer cluster and its kubeconfig Secret. */
export function consumerClusterCrd(): KubeObject {
  return clusterScopedCrd(
    CONSUMER_CRD_NAME,
    { plural: CONSUMER_PLURAL, singular: 'consumercluster', kind: CONSUMER_KIND, shortName: 'cc' },
    [{ name: 'CLUSTERID', type: 'string', jsonPath: '.spec.clusterID' }],
    {
      type: 'object',
      required: ['kubeconfigSecretRef'],
      properties: {
        kubeconfigSecretRef: {
          type: 'object',
          required: ['name'],
          properties: { name: str, key: { type: 'string', default: 'kubeconfig' } },
        },
        clusterID: {
          type: 'string',
          maxLength: 32,
          pattern: '^([a-z][a-z0-9-]{0,30}[a-z0-9])?$',
          'x-kubernetes-validations': writeOnce('clusterID'),
        },
        kubeSystemUID: {
          type: 'string',
          maxLength: 64,
          'x-kubernetes-validations': writeOnce('kubeSystemUID'),
        },
        blueprintSelector: freeObject,
      },
    },
    {
      identity: { type: 'object', properties: { username: str, groups: { type: 'array', items: str } } },
      blueprints: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            name: str,
            exportedAPI: str,
            specHash: str,
            served: { type: 'boolean' },
            reason: str,
            message: str,
          },
        },
      },
    },
  );
}

/** Applies both CRDs (forced) and waits until they are served. */
export async function installPlaneCrds(client: RestClient, opts: InstallOptions = {}): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  for (const crd of [blueprintCrd(), consumerClusterCrd()]) {
    await client.apply(crd, { fieldManager: opts.fieldManager ?? REGISTRAR_MANAGER, force: true });
    out.push(await waitForCrd(client, crd.metadata.name ?? '', opts.timeoutMs ?? 60_000));
  }
  return out;
}

/**
 * The GraphRollout CRD (kgraph.dev/v1alpha1, cluster-scoped, named after its RGD, short name `gro`,
 * design/rgd.md §19.8). `deploy/crds/graphrollouts.kgraph.dev.yaml` is generated from `graphRolloutCrd()`.
 */
import type { KubeObject } from '../../../kube/index.ts';
import { kroCrd } from '../../core/crdSchemaParts.ts';
import { ROLLOUT_CRD_NAME, ROLLOUT_GROUP, ROLLOUT_KIND, ROLLOUT_PLURAL } from './names.ts';

const stringList = { type: 'array', items: { type: 'string' } };

const step = {
  type: 'object',
  properties: {
    canary: {
      type: 'object',
      properties: {
        selector: {
          type: 'object',
          properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string' } } },
        },
        namespaces: stringList,
      },
    },
    pause: { type: 'object', properties: { duration: { type: 'string' } } },
    batch: {
      type: 'object',
      required: ['percent'],
      properties: {
        percent: { type: 'integer', minimum: 1, maximum: 100 },
        maxInFlight: { type: 'integer', minimum: 1 },
      },
    },
  },
  'x-kubernetes-validations': [
    {
      rule: '[has(self.canary), has(self.pause), has(self.batch)].filter(x, x).size() == 1',
      message: 'a step is exactly one of canary, pause, batch',
    },
  ],
};

export function graphRolloutCrd(): KubeObject {
  return kroCrd({
    name: ROLLOUT_CRD_NAME,
    group: ROLLOUT_GROUP,
    scope: 'Cluster',
    names: {
      plural: ROLLOUT_PLURAL,
      singular: 'graphrollout',
      kind: ROLLOUT_KIND,
      listKind: `${ROLLOUT_KIND}List`,
      shortNames: ['gro'],
    },
    printerColumns: [
      { name: 'STABLE', type: 'integer', jsonPath: '.status.stableRevision' },
      { name: 'TARGET', type: 'integer', jsonPath: '.status.targetRevision' },
      { name: 'PHASE', type: 'string', jsonPath: '.status.phase' },
      { name: 'STEP', type: 'integer', jsonPath: '.status.step' },
      { name: 'UPDATED', type: 'integer', jsonPath: '.status.counts.updated' },
      { name: 'READY', type: 'integer', jsonPath: '.status.counts.ready' },
      { name: 'FAILED', type: 'integer', jsonPath: '.status.counts.failed' },
      { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    spec: {
      type: 'object',
      properties: {
        steps: { type: 'array', maxItems: 64, items: step },
        health: {
          type: 'object',
          properties: {
            readyWhen: stringList,
            failWhen: stringList,
            progressDeadline: { type: 'string' },
          },
        },
        gate: { type: 'string' },
        onFailure: {
          type: 'object',
          properties: {
            action: { type: 'string', enum: ['Halt', 'Rollback'] },
            maxFailures: { type: 'integer', minimum: 1 },
          },
        },
        newInstances: { type: 'string', enum: ['Latest', 'Stable'] },
        paused: { type: 'boolean' },
        promoted: {
          type: 'object',
          required: ['revision', 'step'],
          properties: { revision: { type: 'integer' }, step: { type: 'integer' } },
        },
        abortRevision: { type: 'integer' },
        retry: { type: 'integer', minimum: 0 },
      },
    },
    status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  }) as unknown as KubeObject;
}

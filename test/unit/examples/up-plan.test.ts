/**
 * The pure parts of `kgraph up`: which example documents it applies and in which order, how it reads
 * a Graph's progress, and the report it prints. The command itself runs in test/integration/cli/up.test.ts.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseDuration } from '../../../src/cli/duration.ts';
import { loadDocuments, planDocuments } from '../../../src/cli/up/documents.ts';
import { formatReport, graphProgress } from '../../../src/cli/up/report.ts';
import type { KubeObject } from '../../../src/kube/types.ts';

const examples = join(import.meta.dirname, '../../../examples');
const id = (d: { object: KubeObject }) => `${d.object.kind} ${d.object.metadata.name}`;

function graph(conditions: unknown[], generation = 1, status: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'kro.run/v1alpha1',
    kind: 'Graph',
    metadata: { name: 'g', namespace: 'ns', generation },
    status: { conditions, ...status },
  };
}

describe('kgraph up: the plan', () => {
  it('applies namespaces first, then the other objects, then the Graphs and RGDs, then the instances', () => {
    const plan = planDocuments([
      ...loadDocuments(join(examples, 'cluster')),
      ...loadDocuments(join(examples, 'graphs')),
      ...loadDocuments(join(examples, 'rgd')),
      ...loadDocuments(join(examples, 'instances')),
    ]);
    assert.deepEqual(plan.crds, []);
    assert.deepEqual(plan.objects.map(id), [
      'Namespace kgraph-examples',
      'Namespace team-a',
      'Namespace team-b',
      'Namespace team-c',
      'ServiceAccount kgraph-examples',
      'ClusterRoleBinding kgraph-examples',
      'ConfigMap showcase-settings',
    ]);
    assert.deepEqual(plan.graphs.map(id), [
      'Graph namespace-decorator',
      'Graph showcase',
      'Graph team-stamper',
      'Graph webshop',
    ]);
    assert.deepEqual(plan.rgds.map(id), [
      'ResourceGraphDefinition webapp',
      'ResourceGraphDefinition webapplication',
      'ResourceGraphDefinition regionalconfig',
      'ResourceGraphDefinition platform',
    ]);
    // An object of a kind an RGD in the plan serves is an instance, applied once the kind is served.
    assert.deepEqual(plan.instances.map(id), ['RegionalConfig shop']);
    assert.deepEqual(plan.skipped, []);
  });

  it('puts CRDs in their own first step', () => {
    const crd: KubeObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'a.b' },
    };
    const plan = planDocuments([{ file: 'x.yaml', object: crd }]);
    assert.deepEqual(plan.crds.map(id), ['CustomResourceDefinition a.b']);
  });

  it('a missing directory has no documents', () => {
    assert.deepEqual(loadDocuments(join(examples, 'does-not-exist')), []);
  });

  it('parses durations', () => {
    assert.equal(parseDuration('2m'), 120_000);
    assert.equal(parseDuration('90s'), 90_000);
    assert.equal(parseDuration('1500ms'), 1500);
    assert.equal(parseDuration('1h'), 3_600_000);
    assert.equal(parseDuration('30'), 30_000);
    assert.throws(() => parseDuration('soon'), /invalid duration "soon"/);
  });
});

describe('kgraph up: progress and report', () => {
  it('is ready only when Ready=True was written for the current generation', () => {
    assert.deepEqual(graphProgress(undefined), { ready: false, summary: 'not found' });
    assert.equal(graphProgress(graph([])).summary, 'waiting for the controller');
    const stale = graph([{ type: 'Ready', status: 'True', reason: 'Ready', observedGeneration: 1 }], 2);
    assert.equal(graphProgress(stale).ready, false);
    assert.match(graphProgress(stale).summary, /latest spec/);
    const pending = graph([
      {
        type: 'Ready',
        status: 'False',
        reason: 'DataPending',
        message: 'settings missing',
        observedGeneration: 1,
      },
    ]);
    assert.deepEqual(graphProgress(pending), {
      ready: false,
      summary: 'Ready=False DataPending: settings missing',
    });
    assert.equal(
      graphProgress(graph([{ type: 'Ready', status: 'True', observedGeneration: 1 }])).ready,
      true,
    );
  });

  it('reports conditions, resources, contributions and the kubectl commands', () => {
    const g = graph(
      [
        { type: 'Accepted', status: 'True', reason: 'Compiled', observedGeneration: 1 },
        { type: 'Ready', status: 'True', reason: 'Ready', observedGeneration: 1 },
      ],
      1,
      {
        managedResources: [
          { nodeID: 'cm', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'one', uid: 'u1' },
          {
            nodeID: 'pol',
            apiVersion: 'networking.k8s.io/v1',
            kind: 'NetworkPolicy',
            namespace: 'a',
            name: 'p',
          },
        ],
        contributions: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'settings' }],
      },
    );
    const text = formatReport([g], '/d/admin.kubeconfig', '/d');
    // kubectl's names (kind.group/name, core group omitted), the namespace as `-n` or a column.
    assert.match(text, /\ngraph\.kro\.run\/g -n ns {2}Ready\n/);
    assert.match(text, /conditions: Accepted=True \(Compiled\) · Ready=True \(Ready\)/);
    assert.ok(
      text.includes(
        [
          '  resources:',
          '    NAMESPACE  NAME                               NODE',
          '    ns         configmap/one                      cm',
          '    a          networkpolicy.networking.k8s.io/p  pol',
          '  patched (fields contributed, object not owned):',
          '    NAMESPACE  NAME',
          '    ns         configmap/settings',
        ].join('\n'),
      ),
      text,
    );
    assert.doesNotMatch(text, /ConfigMap|NetworkPolicy|Graph ns/, 'no kind in the old `Kind ns/name` form');
    assert.match(text, /export KUBECONFIG=\/d\/admin\.kubeconfig/);
    assert.match(text, /kubectl get graph g -n ns -o yaml/);
    assert.match(text, /kubectl get configmap,networkpolicy -A -l kro\.run\/node-id/);
    assert.match(text, /kgraph down --data-dir \/d/);
  });
});

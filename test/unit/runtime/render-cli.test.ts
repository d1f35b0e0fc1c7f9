import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { type RenderOptions, runRender } from '../../../src/cli/commands/render.ts';

const bin = join(import.meta.dirname, '../../../bin/kgraph.js');
const fixtures = join(import.meta.dirname, '../../fixtures/runtime');

/** Runs the real CLI in a child process (argument parsing, files, output, exit code). */
function render(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, 'render', ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The same command in-process (faster), with the CLI's argument parsing reduced to its options. */
function renderInProcess(file: string, options: Partial<RenderOptions> & { args?: never } = {}) {
  const r = runRender(file, { state: [], crd: [], output: 'json', ...options });
  return { code: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

interface Output {
  nodes: {
    id: string;
    kind: string;
    state: string;
    reason: string | null;
    objects: Record<string, unknown>[];
  }[];
  status?: Record<string, unknown>;
  passes?: number;
}

function byId(out: Output, id: string) {
  const n = out.nodes.find((x) => x.id === id);
  assert.ok(n, `node ${id}`);
  return n;
}

const ns = (o: Record<string, unknown>) => (o.metadata as { namespace: string }).namespace;

describe('kgraph render', () => {
  const decorator = join(fixtures, 'namespace-decorator');

  it('--until-converged on the namespace decorator gives one NetworkPolicy per labelled namespace', () => {
    const r = render(
      join(decorator, 'graph.yaml'),
      '--state',
      join(decorator, 'state.yaml'),
      '--until-converged',
      '-o',
      'json',
    );
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as Output;
    assert.deepEqual(Object.keys(out.nodes[0]!), ['id', 'kind', 'state', 'reason', 'objects']);
    const policies = byId(out, 'policies');
    assert.equal(policies.state, 'ready');
    assert.deepEqual(policies.objects.map(ns), ['team-a', 'team-c']);
    assert.ok(policies.objects.every((o) => o.kind === 'NetworkPolicy'));
    // Pass 1 renders, pass 2 sees the echoed policies (ready), pass 3 confirms nothing changes.
    assert.equal(out.passes, 3);
    assert.equal(out.status, undefined);
  });

  it('a single pass renders the policies as waiting (not observed yet), in YAML', () => {
    const r = renderInProcess(join(decorator, 'graph.yaml'), {
      state: [join(decorator, 'state.yaml')],
      output: 'yaml',
    });
    assert.equal(r.code, 0, r.stderr);
    const out = parseYaml(r.stdout) as Output;
    const policies = byId(out, 'policies');
    assert.equal(policies.state, 'waiting');
    assert.match(
      policies.reason!,
      /networkpolicy\.networking\.k8s\.io\/default-deny -n team-a is not observed yet/,
    );
    assert.equal(policies.objects.length, 2);
    assert.equal(out.passes, undefined);
  });

  const hdb = join(fixtures, 'hosteddatabase');

  it('renders the seed blueprint progressively: without the VPC only what reads the instance', () => {
    const r = renderInProcess(join(hdb, 'rgd.yaml'), {
      crd: [join(hdb, 'vpc-crd.yaml')],
      instance: join(hdb, 'instance.yaml'),
    });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as Output;
    assert.deepEqual(
      out.nodes.map((n) => [n.id, n.state]),
      [
        ['vpc', 'pending'],
        ['db', 'pending'],
        ['registration', 'waiting'],
        ['connection', 'pending'],
      ],
    );
    assert.match(
      byId(out, 'vpc').reason!,
      /vpc\.ec2\.services\.k8s\.aws\/orders-vpc -n default does not exist yet/,
    );
    assert.deepEqual(byId(out, 'registration').objects[0]!.data, {
      consumerCluster: 'root-acme',
      engine: 'postgres',
    });
    assert.deepEqual(out.status, {});
  });

  it('converges the seed blueprint with the VPC in --state and projects the instance status', () => {
    const r = render(
      join(hdb, 'rgd.yaml'),
      '--crd',
      join(hdb, 'vpc-crd.yaml'),
      '--instance',
      join(hdb, 'instance.yaml'),
      '--state',
      join(hdb, 'state.yaml'),
      '--until-converged',
      '-o',
      'json',
    );
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as Output;
    assert.ok(
      out.nodes.every((n) => n.state === 'ready'),
      JSON.stringify(out.nodes.map((n) => [n.id, n.state])),
    );
    assert.deepEqual(out.status, {
      endpoint: 'root-acme-orders.databases.svc.cluster.local',
      vpcID: 'vpc-0a1b2c',
    });
  });

  it('renders the seed node examples: nested graph, outward addressing, exclusion chain, patch', () => {
    const seed = join(fixtures, 'seed-graph');
    const r = renderInProcess(join(seed, 'graph.yaml'), {
      state: [join(seed, 'state.yaml')],
      untilConverged: true,
    });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as Output;
    assert.deepEqual(
      out.nodes.map((n) => [n.id, n.state]),
      [
        ['config', 'ready'],
        ['flags', 'ready'],
        ['backend', 'ready'],
        ['backend.deployment', 'ready'],
        ['backend.service', 'ready'],
        ['naming', 'ready'],
        ['ingress', 'excluded'],
        ['ingressNote', 'excluded'],
        ['appStatus', 'ready'],
      ],
    );
    assert.deepEqual(byId(out, 'naming').objects, [
      { prefix: 'shop-backend-team-a', labels: { app: 'shop' } },
    ]);
    assert.deepEqual(byId(out, 'appStatus').objects[0]!.data, { backend: 'shop-backend' });
    assert.equal(byId(out, 'ingressNote').reason, 'dependency "ingress" is excluded');
  });

  it('renders a kro RGD for a defaulted instance: ready-gating, forEach, includeWhen, typed status', () => {
    const webapp = join(fixtures, 'webapp');
    const first = JSON.parse(renderInProcess(join(webapp, 'rgd.yaml')).stdout) as Output;
    assert.deepEqual(
      first.nodes.map((n) => [n.id, n.state]),
      [
        ['deployment', 'waiting'],
        ['configs', 'pending'],
        ['ingress', 'excluded'],
      ],
    );
    assert.match(byId(first, 'configs').reason!, /waiting for dependency "deployment" to become ready/);
    assert.deepEqual(first.status, { ratio: 1.5 });
    const r = renderInProcess(join(webapp, 'rgd.yaml'), {
      state: [join(webapp, 'state.yaml')],
      untilConverged: true,
    });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as Output;
    assert.deepEqual(
      byId(out, 'configs').objects.map((o) => (o.metadata as { name: string }).name),
      ['web-eu', 'web-us'],
    );
    assert.deepEqual(out.status, { available: 2, configs: '2', ratio: 1.5 });
  });

  it('renders the seed dynamic-type example once the CRD is observed', () => {
    const dyn = join(fixtures, 'dynamic');
    const r = renderInProcess(join(dyn, 'graph.yaml'), { state: [join(dyn, 'state.yaml')] });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as Output;
    assert.deepEqual(
      out.nodes.map((n) => [n.id, n.state]),
      [
        ['crd', 'ready'],
        ['widgets', 'ready'],
        ['summary', 'ready'],
        ['extra', 'waiting'],
      ],
    );
    // The selector ref without a namespace lists across all namespaces.
    assert.deepEqual(byId(out, 'summary').objects, [{ names: ['alpha', 'beta'] }]);
    assert.deepEqual(byId(out, 'extra').objects[0], {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'extra', namespace: 'apps' },
      spec: { size: 2 },
    });
  });

  it('fails clearly for an unknown --name', () => {
    const r = renderInProcess(join(decorator, 'graph.yaml'), { name: 'nope' });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no Graph or ResourceGraphDefinition named nope/);
  });
});

describe('kgraph render input checks', () => {
  it('refuses a --state object without a kind (a typo such as `kidn:`) instead of ignoring it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kgraph-render-'));
    const state = join(dir, 'state.yaml');
    writeFileSync(state, 'apiVersion: v1\nkidn: Namespace\nmetadata:\n  name: team-a\n');
    const r = render(join(fixtures, 'namespace-decorator', 'graph.yaml'), '--state', state);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /state\.yaml: document 1: the object has no kind/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  });

  it("refuses an --instance whose kind is not the RGD's (a typo such as `kind: WebAp`)", () => {
    const dir = mkdtempSync(join(tmpdir(), 'kgraph-render-'));
    const instance = join(dir, 'instance.yaml');
    writeFileSync(
      instance,
      'apiVersion: kro.run/v1alpha1\nkind: WebAp\nmetadata: {name: shop}\nspec: {name: shop}\n',
    );
    const rgd = join(import.meta.dirname, '../../../examples/graphs/webapp-rgd.yaml');
    const r = render(rgd, '--instance', instance);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(
      r.stderr,
      /--instance .*instance\.yaml: expected a kro\.run\/v1alpha1 WebApp .*found kro\.run\/v1alpha1 WebAp\n/,
    );
  });
});

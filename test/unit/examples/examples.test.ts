/**
 * The runnable examples stay runnable: `kgraph validate` accepts every example (ours and the seeds'),
 * and `kgraph render` on the main ones gives the node states and objects examples/README.md promises.
 * The main checks run the real CLI in a child process, as a reader would type it; the variants call
 * the render command's implementation in-process (same options, same output) to keep the run short.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { runRender } from '../../../src/cli/commands/render.ts';

const root = join(import.meta.dirname, '../../..');
const bin = join(root, 'bin/kgraph.js');
const ex = (...p: string[]) => join(root, 'examples', ...p);
const seeds = join(root, 'test/fixtures/graph/seeds');

function kgraph(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: root, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Rendered {
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

function render(...args: string[]): Rendered {
  const r = kgraph('render', ...args, '-o', 'json');
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as Rendered;
}

/** `kgraph render FILE [--instance I] [--state S…] [--until-converged]`, in-process. */
function renderInProcess(
  file: string,
  opts: { state?: string[]; instance?: string; untilConverged?: boolean } = {},
): Rendered {
  const r = runRender(file, { state: opts.state ?? [], crd: [], output: 'json', ...opts });
  assert.equal(r.exitCode, 0, r.stderr);
  return JSON.parse(r.stdout) as Rendered;
}

function node(out: Rendered, id: string) {
  const n = out.nodes.find((x) => x.id === id);
  assert.ok(n, `node ${id}`);
  return n;
}

type Obj = {
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
} & Record<string, unknown>;
const objs = (out: Rendered, id: string) => node(out, id).objects as Obj[];
const names = (out: Rendered, id: string) => objs(out, id).map((o) => o.metadata.name);

interface Validated {
  objects: { file: string; kind: string; name: string; accepted: boolean; diagnostics: unknown[] }[];
}

describe('kgraph validate on the examples', () => {
  it('accepts every Graph and RGD in examples/graphs (exit 0, no diagnostics)', () => {
    const r = kgraph('validate', ex('graphs'), '-o', 'json');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const out = JSON.parse(r.stdout) as Validated;
    assert.deepEqual(
      out.objects.map((o) => `${o.kind}/${o.name}`),
      [
        'Graph/namespace-decorator',
        'Graph/showcase',
        'Graph/team-stamper',
        'ResourceGraphDefinition/webapp',
        'Graph/webshop',
      ],
    );
    for (const o of out.objects) {
      assert.equal(o.accepted, true, o.name);
      assert.deepEqual(o.diagnostics, [], o.name);
    }
  });

  it("accepts the seeds' examples with their CRD fixtures (exit 0)", () => {
    const crds = readdirSync(join(seeds, 'crds')).flatMap((f) => ['--crd', join(seeds, 'crds', f)]);
    const r = kgraph('validate', seeds, ...crds, '-o', 'json');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const out = JSON.parse(r.stdout) as Validated;
    // Entries with an empty kind carry file-level diagnostics (the seed's documented KG2002 warnings).
    const objects = out.objects.filter((o) => o.kind !== '');
    assert.equal(objects.length, 7);
    assert.ok(objects.every((o) => o.accepted && o.diagnostics.length === 0));
  });

  it('the showcase uses every node kind and every modifier', () => {
    const g = parseYaml(readFileSync(ex('graphs', 'showcase.yaml'), 'utf8')) as {
      spec: { nodes: Record<string, unknown>[] };
    };
    const all = [
      ...g.spec.nodes,
      ...g.spec.nodes.flatMap((n) => (n.graph as { nodes?: Record<string, unknown>[] })?.nodes ?? []),
    ];
    for (const kind of ['template', 'ref', 'def', 'patch', 'graph'])
      assert.ok(
        all.some((n) => kind in n),
        kind,
      );
    for (const modifier of ['includeWhen', 'readyWhen', 'forEach'])
      assert.ok(
        all.some((n) => modifier in n),
        modifier,
      );
  });
});

describe('kgraph render on the examples', () => {
  const settings = ex('cluster', 'showcase-settings.yaml');

  it('showcase, as the cluster sees it after a reconcile: every node ready, debug excluded', () => {
    const out = render(
      ex('graphs', 'showcase.yaml'),
      '--state',
      settings,
      '--state',
      ex('state', 'showcase-observed.yaml'),
    );
    const states = Object.fromEntries(out.nodes.map((n) => [n.id, n.state]));
    assert.deepEqual(states, {
      settings: 'ready',
      app: 'ready',
      tierConfigs: 'ready',
      tierServices: 'ready',
      debug: 'excluded',
      backend: 'ready',
      'backend.deployment': 'ready',
      'backend.service': 'ready',
      policy: 'ready',
      settingsNote: 'ready',
    });
    assert.match(node(out, 'debug').reason ?? '', /includeWhen \$\{app\.debug\} is false/);
    assert.deepEqual(node(out, 'app').objects, [
      { name: 'showcase', tiers: ['web', 'api'], debug: false, owner: 'team-a' },
    ]);
    assert.deepEqual(names(out, 'tierConfigs'), ['showcase-web', 'showcase-api']);
    assert.deepEqual(objs(out, 'tierConfigs')[0]?.data, { TIER: 'web', OWNER: 'team-a' });
    assert.deepEqual(names(out, 'tierServices'), ['showcase-web', 'showcase-api']);
    assert.deepEqual((objs(out, 'tierServices')[1]?.spec as { selector?: unknown } | undefined)?.selector, {
      'app.kubernetes.io/name': 'showcase',
      'app.kubernetes.io/component': 'api',
    });
    const policy = objs(out, 'policy')[0];
    assert.equal(policy?.metadata.name, 'showcase-backend');
    assert.deepEqual((policy?.spec as { podSelector?: unknown } | undefined)?.podSelector, {
      matchLabels: { 'app.kubernetes.io/name': 'showcase', 'app.kubernetes.io/component': 'backend' },
    });
    // The patch carries only the contribution, with the backend Service's observed cluster IP.
    assert.deepEqual(objs(out, 'settingsNote'), [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'showcase-settings',
          namespace: 'kgraph-examples',
          annotations: {
            'kgraph.dev/backend-service': 'showcase-backend',
            'kgraph.dev/backend-cluster-ip': '10.0.0.13',
          },
        },
      },
    ]);
  });

  it('showcase with only its settings: one pass waits for the objects to be observed', () => {
    const out = renderInProcess(ex('graphs', 'showcase.yaml'), { state: [settings] });
    assert.equal(node(out, 'settings').state, 'ready');
    assert.equal(node(out, 'tierConfigs').state, 'waiting');
    assert.match(node(out, 'tierConfigs').reason ?? '', /not observed yet/);
    assert.equal(node(out, 'backend.service').state, 'pending');
  });

  it('showcase with debug on and a third tier (--until-converged): includeWhen and forEach follow', () => {
    const out = renderInProcess(ex('graphs', 'showcase.yaml'), {
      state: [ex('state', 'showcase-debug-settings.yaml')],
      untilConverged: true,
    });
    assert.deepEqual(names(out, 'tierConfigs'), ['showcase-web', 'showcase-api', 'showcase-worker']);
    assert.ok(objs(out, 'tierConfigs').every((o) => (o.data as { OWNER: string }).OWNER === 'team-b'));
    assert.equal(node(out, 'debug').state, 'ready');
    assert.deepEqual(objs(out, 'debug')[0]?.data, { LOG_LEVEL: 'debug' });
    assert.deepEqual(names(out, 'tierServices'), ['showcase-web', 'showcase-api', 'showcase-worker']);
  });

  it('without the settings ConfigMap the showcase waits on its ref (DataPending), renders nothing', () => {
    const out = renderInProcess(ex('graphs', 'showcase.yaml'));
    assert.equal(node(out, 'settings').state, 'pending');
    assert.deepEqual(node(out, 'tierConfigs').objects, []);
  });

  it('namespace decorator --until-converged: one NetworkPolicy per labelled namespace', () => {
    const out = render(
      ex('graphs', 'namespace-decorator.yaml'),
      '--state',
      ex('cluster', 'decorated-namespaces.yaml'),
      '--until-converged',
    );
    const policies = node(out, 'policies');
    assert.equal(policies.state, 'ready');
    assert.deepEqual(
      objs(out, 'policies').map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`),
      ['NetworkPolicy team-a/default-deny-ingress', 'NetworkPolicy team-b/default-deny-ingress'],
    );
    assert.deepEqual(objs(out, 'policies')[0]?.spec as Record<string, unknown>, {
      podSelector: {},
      policyTypes: ['Ingress'],
    });
  });

  it('namespace decorator: labelling team-c (a later --state) adds its policy', () => {
    const out = renderInProcess(ex('graphs', 'namespace-decorator.yaml'), {
      state: [ex('cluster', 'decorated-namespaces.yaml'), ex('state', 'team-c-decorated.yaml')],
      untilConverged: true,
    });
    assert.deepEqual(
      objs(out, 'policies').map((o) => o.metadata.namespace),
      ['team-a', 'team-b', 'team-c'],
    );
  });

  it('webapp RGD: the instance renders, readiness gates the Service, status projects the Deployment', () => {
    const out = renderInProcess(ex('graphs', 'webapp-rgd.yaml'), {
      instance: ex('state', 'webapp-instance.yaml'),
      state: [ex('state', 'webapp-deployment.yaml')],
      untilConverged: true,
    });
    assert.deepEqual(Object.fromEntries(out.nodes.map((n) => [n.id, n.state])), {
      deployment: 'ready',
      service: 'ready',
      envConfigs: 'ready',
    });
    assert.deepEqual((objs(out, 'deployment')[0]?.spec as { replicas?: number } | undefined)?.replicas, 3);
    assert.deepEqual(names(out, 'envConfigs'), ['shop-dev', 'shop-prod']);
    assert.deepEqual(objs(out, 'envConfigs')[1]?.data, { ENVIRONMENT: 'prod', IMAGE: 'nginx:1.27' });
    assert.equal(out.status?.availableReplicas, 3);
  });

  it('webapp RGD: without a ready Deployment the Service waits (ready-gating)', () => {
    const out = renderInProcess(ex('graphs', 'webapp-rgd.yaml'), {
      instance: ex('state', 'webapp-instance.yaml'),
    });
    assert.equal(node(out, 'service').state, 'pending');
    assert.match(node(out, 'service').reason ?? '', /waiting for dependency "deployment" to become ready/);
  });

  it('team stamper --until-converged: per team a Namespace, a RoleBinding and a child Graph with deferred CEL', () => {
    const out = renderInProcess(ex('graphs', 'team-stamper.yaml'), { untilConverged: true });
    assert.deepEqual(names(out, 'namespaces'), ['team-alpha', 'team-beta']);
    assert.deepEqual(
      objs(out, 'admins').map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
      ['team-alpha/graph-admin', 'team-beta/graph-admin'],
    );
    const child = objs(out, 'teamGraphs')[1] as Obj & { spec: { nodes: { id: string; template: Obj }[] } };
    assert.equal(child.kind, 'Graph');
    assert.equal(child.metadata.namespace, 'team-beta');
    // The parent evaluated its own expressions and left the quoted ones for the child.
    assert.deepEqual(child.spec.nodes[0]?.template.data, { team: 'beta' });
    const cel = (expr: string): string => `\${${expr}}`;
    assert.equal(child.spec.nodes[1]?.template.metadata.name, `${cel('info.metadata.name')}-copy`);
    assert.deepEqual(child.spec.nodes[1]?.template.data, {
      copiedFrom: cel('info.metadata.name'),
      team: cel('info.data.team'),
    });
    // Offline nobody reconciles the children, so the ref that gates on their Ready waits.
    assert.equal(node(out, 'teamStatus').state, 'waiting');
  });

  it('kgraph crd prints the WebApp CRD generated from the RGD', () => {
    const r = kgraph('crd', ex('graphs', 'webapp-rgd.yaml'));
    assert.equal(r.code, 0, r.stderr);
    const crd = parseYaml(r.stdout) as { metadata: { name: string }; spec: { names: { kind: string } } };
    assert.equal(crd.metadata.name, 'webapps.kro.run');
    assert.equal(crd.spec.names.kind, 'WebApp');
  });
});

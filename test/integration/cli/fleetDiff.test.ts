// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * `kgraph fleet diff` on the real control plane (design/rgd.md §19.9): six instances of an RGD, an edit
 * that touches some of them (a changed ConfigMap and Deployment image for the big ones, a new child for
 * the red ones, a removed node for the green ones); the diff's prediction must be exactly the children
 * the controller then writes (generation or resourceVersion changed), creates and prunes once the edit
 * is applied. Then the rollback
 * preview between two GraphRevisions, `--server-side`, and the refusals (exit 2, located diagnostics).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
import { LABEL_APPLYSET_PART_OF } from '../../../src/controller/rgd/names.ts';
import { runFleetDiff } from '../../../src/fleet/run.ts';
import type { RestClient } from '../../../src/kube/index.ts';
import { sharedControlPlane } from '../../support/controlPlane.ts';
import { documentedSchema, schemaViolations } from '../../support/jsonSchema.ts';
import { grantServiceAccount } from '../../support/kube.ts';
import {
  applyInstance,
  applyRgd,
  eventually,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from '../rgd/support.ts';

const cmTemplate = (suffix: string, data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `\${schema.metadata.name}-${suffix}` },
  data,
});

const SCHEMA = {
  kind: 'FleetWeb',
  spec: { color: 'string | default="blue"', big: 'boolean | default=false' },
};

/** A Deployment whose image the edit changes for the big instances only (server-defaulted fields, lists). */
const deployment = (bigImage: string) => ({
  id: 'web',
  template: {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: '${schema.metadata.name}-web' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: '${schema.metadata.name}-web' } },
      template: {
        metadata: { labels: { app: '${schema.metadata.name}-web' } },
        spec: {
          containers: [
            {
              name: 'web',
              image: `\${schema.spec.big ? "${bigImage}" : "nginx:1.26"}`,
              ports: [{ containerPort: 8080 }],
            },
          ],
        },
      },
    },
  },
});

const V1 = [
  { id: 'config', template: cmTemplate('config', { color: '${schema.spec.color}' }) },
  deployment('nginx:1.27'),
  { id: 'extra', includeWhen: ['${schema.spec.big}'], template: cmTemplate('extra', { size: 'large' }) },
  {
    id: 'legacy',
    includeWhen: ['${schema.spec.color == "green"}'],
    template: cmTemplate('legacy', { old: 'yes' }),
  },
];
const V2 = [
  { id: 'config', template: cmTemplate('config', { color: '${schema.spec.color}' }) },
  deployment('nginx:1.28'),
  {
    id: 'extra',
    includeWhen: ['${schema.spec.big}'],
    template: cmTemplate('extra', { size: 'large', owner: 'platform' }),
  },
  {
    id: 'fresh',
    includeWhen: ['${schema.spec.color == "red"}'],
    template: cmTemplate('fresh', { hello: 'red' }),
  },
];

const INSTANCES: [string, Record<string, unknown>][] = [
  ['a', {}],
  ['b', { big: true }],
  ['c', { color: 'red' }],
  ['d', { color: 'green' }],
  ['e', { big: true, color: 'red' }],
  ['f', {}],
];

/**
 * The instances' children: `Kind/name` → what tells a write: the generation where the kind has one (a
 * Deployment's status moves on its own; its generation only with a spec write), else the resourceVersion.
 */
async function children(client: RestClient, ns: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [apiVersion, kind] of [
    ['v1', 'ConfigMap'],
    ['apps/v1', 'Deployment'],
  ] as const) {
    const list = await client.listAll(
      { apiVersion, kind, namespace: ns },
      { labelSelector: LABEL_APPLYSET_PART_OF },
    );
    for (const o of list.items) {
      if (o.metadata.deletionTimestamp) continue;
      const version =
        o.metadata.generation !== undefined
          ? `g${o.metadata.generation}`
          : (o.metadata.resourceVersion ?? '');
      out.set(`${kind}/${o.metadata.name ?? ''}`, version);
    }
  }
  return out;
}

/** `action Kind/name` for every object the report names. */
function predicted(report: {
  instances: { objects: { action: string; kind: string; name: string }[] }[];
}): string[] {
  return report.instances.flatMap((i) => i.objects.map((o) => `${o.action} ${o.kind}/${o.name}`)).sort();
}

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['bin/kgraph.js', 'fleet', 'diff', ...args], {
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, KGRAPH_SOURCES: '1' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('kgraph fleet diff', () => {
  let f: RgdFixture;
  let client: RestClient;
  let controller: RgdController;
  let kubeconfig: string;
  const dir = mkdtempSync(join(tmpdir(), 'kgraph-fleet-diff-'));
  let v2File: string;

  before(async () => {
    f = await rgdFixture('fleet-diff');
    ({ client, controller } = f);
    kubeconfig = (await sharedControlPlane()).kubeconfigPath;
    await applyRgd(client, rgd(f, 'fleetweb', SCHEMA, V1));
    await waitRgd(client, 'fleetweb', 'Ready', 'True');
    for (const [name, spec] of INSTANCES) await applyInstance(client, instance(f, 'FleetWeb', name, spec));
    for (const [name] of INSTANCES) await waitState(client, f, 'FleetWeb', name, 'ACTIVE');
    await controller.idle();
    v2File = join(dir, 'fleetweb-v2.yaml');
    writeFileSync(v2File, stringify(rgd(f, 'fleetweb', SCHEMA, V2)));
  });
  after(() => stopRgdController(controller));

  it('predicts exactly the children the controller then changes, creates and prunes', async () => {
    const run = await runFleetDiff(client, { file: v2File }, { namespace: f.ns });
    assert.equal(run.exitCode, 1);
    assert.equal(run.report.schema.verdict, 'compatible');
    assert.deepEqual(predicted(run.report), [
      'add ConfigMap/c-fresh',
      'add ConfigMap/e-fresh',
      'change ConfigMap/b-extra',
      'change ConfigMap/e-extra',
      'change Deployment/b-web',
      'change Deployment/e-web',
      'prune ConfigMap/d-legacy',
    ]);
    const b = run.report.instances.find((i) => i.name === 'b');
    assert.deepEqual(
      b?.objects.map((o) => o.fields),
      [
        [{ path: 'data.owner', op: 'set', to: 'platform' }],
        [
          {
            path: 'spec.template.spec.containers[name=web].image',
            op: 'set',
            from: 'nginx:1.27',
            to: 'nginx:1.28',
          },
        ],
      ],
    );
    assert.equal(run.report.summary.affected, 4);

    const before = await children(client, f.ns);
    await applyRgd(client, rgd(f, 'fleetweb', SCHEMA, V2));
    await waitRgd(client, 'fleetweb', 'Ready', 'True');
    // Converged: the new child exists and the removed node's child is gone.
    await eventually('the edit converged', async () => {
      const now = await children(client, f.ns);
      return now.has('ConfigMap/e-fresh') &&
        now.has('ConfigMap/c-fresh') &&
        !now.has('ConfigMap/d-legacy') &&
        now.get('Deployment/b-web') === 'g2' &&
        now.get('Deployment/e-web') === 'g2'
        ? true
        : undefined;
    });
    for (const [name] of INSTANCES) await waitState(client, f, 'FleetWeb', name, 'ACTIVE');
    await controller.idle();
    const after = await children(client, f.ns);
    const actual: string[] = [];
    for (const [name, version] of after) {
      if (!before.has(name)) actual.push(`add ${name}`);
      else if (before.get(name) !== version) actual.push(`change ${name}`);
    }
    for (const name of before.keys()) if (!after.has(name)) actual.push(`prune ${name}`);
    assert.deepEqual(actual.sort(), predicted(run.report));

    // Applied: the same file against the cluster now changes nothing.
    const again = await runFleetDiff(client, { file: v2File }, { namespace: f.ns });
    assert.deepEqual(predicted(again.report), []);
    assert.equal(again.exitCode, 0);
  });

  it('previews a rollback between two GraphRevisions, and dry-runs it server-side', async () => {
    const run = await runFleetDiff(
      client,
      { rgd: 'fleetweb', from: 2, to: 1 },
      { namespace: f.ns, serverSide: true },
    );
    assert.equal(run.report.from, 'revision 2');
    assert.equal(run.report.to, 'revision 1');
    assert.deepEqual(predicted(run.report), [
      'add ConfigMap/d-legacy',
      'change ConfigMap/b-extra',
      'change ConfigMap/e-extra',
      'change Deployment/b-web',
      'change Deployment/e-web',
      'prune ConfigMap/c-fresh',
      'prune ConfigMap/e-fresh',
    ]);
    const b = run.report.instances.find((i) => i.name === 'b');
    assert.deepEqual(b?.objects[0]?.fields, [{ path: 'data.owner', op: 'remove', from: 'platform' }]);
    const answers = run.report.instances.flatMap((i) => Object.entries(i.serverSide ?? {}));
    assert.deepEqual(answers.map(([k, a]) => `${k} ${a.outcome}`).sort(), [
      `ConfigMap/${f.ns}/b-extra admitted`,
      `ConfigMap/${f.ns}/d-legacy admitted`,
      `ConfigMap/${f.ns}/e-extra admitted`,
      `Deployment/${f.ns}/b-web admitted`,
      `Deployment/${f.ns}/e-web admitted`,
    ]);
    // A dry run writes nothing.
    const now = await children(client, f.ns);
    assert.ok(!now.has('ConfigMap/d-legacy'));
  });

  it('the command reads the RGD from standard input with -f -', () => {
    const r = spawnSync(
      process.execPath,
      ['bin/kgraph.js', 'fleet', 'diff', '-f', '-', '-n', f.ns, '--kubeconfig', kubeconfig],
      {
        encoding: 'utf8',
        timeout: 120_000,
        input: stringify(rgd(f, 'fleetweb', SCHEMA, V1)),
        env: { ...process.env, KGRAPH_SOURCES: '1' },
      },
    );
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stdout, /→ <stdin>\n/);
    assert.match(r.stdout, /prune {4}ConfigMap\/c-fresh/);
  });

  it('the command: JSON for CI with exit code 1, and -l narrows the instances', () => {
    const r = cli([
      '--rgd',
      'fleetweb',
      '--from',
      '2',
      '--to',
      '1',
      '-n',
      f.ns,
      '-o',
      'json',
      '--kubeconfig',
      kubeconfig,
    ]);
    assert.equal(r.status, 1, r.stderr);
    const report = JSON.parse(r.stdout) as { summary: { affected: number }; instances: unknown[] };
    assert.deepEqual(schemaViolations(report, documentedSchema('fleet-diff')), []);
    assert.equal(report.summary.affected, 4);
    assert.equal(report.instances.length, 6);
    const none = cli([
      '--rgd',
      'fleetweb',
      '--from',
      '2',
      '--to',
      '1',
      '-n',
      f.ns,
      '-l',
      'nothing=here',
      '--kubeconfig',
      kubeconfig,
    ]);
    assert.equal(none.status, 0, none.stderr);
    assert.match(none.stdout, /instances: 0, affected 0/);
  });

  it('refuses a file that does not compile with its located diagnostic, and a missing revision (exit 2)', () => {
    const bad = join(dir, 'bad.yaml');
    const resources = [{ id: 'config', template: cmTemplate('config', { color: '${schema.spec.colour}' }) }];
    writeFileSync(bad, stringify(rgd(f, 'fleetweb', SCHEMA, resources)));
    const r = cli(['-f', bad, '-n', f.ns, '--kubeconfig', kubeconfig]);
    assert.equal(r.status, 2, r.stdout);
    assert.match(r.stderr, /KG6122/);
    assert.match(r.stderr, new RegExp(`${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+`));
    assert.match(r.stderr, /colour/);
    const missing = cli(['--rgd', 'fleetweb', '--from', '9', '-n', f.ns, '--kubeconfig', kubeconfig]);
    assert.equal(missing.status, 2);
    assert.match(
      missing.stderr,
      /KG6121: ResourceGraphDefinition fleetweb has no revision 9 \(revisions kept: 1, 2\)/,
    );
    const renamed = join(dir, 'renamed.yaml');
    writeFileSync(renamed, stringify(rgd(f, 'fleetweb', { ...SCHEMA, kind: 'FleetSite' }, V2)));
    const kind = cli(['-f', renamed, '-n', f.ns, '--kubeconfig', kubeconfig]);
    assert.equal(kind.status, 2);
    assert.match(kind.stderr, /KG6124: .*FleetSite.*FleetWeb.*immutable/);
    const neither = cli(['-n', f.ns, '--kubeconfig', kubeconfig]);
    assert.equal(neither.status, 2);
    assert.match(neither.stderr, /KG6123/);
  });

  it("--server-side applies as the instance's ServiceAccount: what it may not write is refused", async () => {
    await client.apply(
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'deployer', namespace: f.ns } },
      { fieldManager: 'test', force: true },
    );
    await grantServiceAccount(
      client,
      f.ns,
      'deployer',
      ['configmaps'],
      ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'],
      {
        name: 'deployer',
        namespace: f.ns,
      },
    );
    const withSa = (resources: unknown[]) => {
      const r = rgd(f, 'fleetsa', { ...SCHEMA, kind: 'FleetSa' }, resources);
      (r.spec as Record<string, unknown>).defaultServiceAccounts = { '*': 'deployer' };
      return r;
    };
    const base = [{ id: 'config', template: cmTemplate('config', { color: '${schema.spec.color}' }) }];
    await applyRgd(client, withSa(base));
    await waitRgd(client, 'fleetsa', 'Ready', 'True');
    await applyInstance(client, instance(f, 'FleetSa', 'sa1', {}));
    await waitState(client, f, 'FleetSa', 'sa1', 'ACTIVE');
    await controller.idle();
    const file = join(dir, 'fleetsa-v2.yaml');
    writeFileSync(
      file,
      stringify(
        withSa([
          {
            id: 'config',
            template: cmTemplate('config', { color: '${schema.spec.color}', owner: 'platform' }),
          },
          {
            id: 'secret',
            template: {
              apiVersion: 'v1',
              kind: 'Secret',
              metadata: { name: '${schema.metadata.name}-secret' },
              stringData: { k: 'v' },
            },
          },
        ]),
      ),
    );
    const run = await runFleetDiff(client, { file }, { namespace: f.ns, serverSide: true });
    const sa1 = run.report.instances.find((i) => i.name === 'sa1');
    const as = `system:serviceaccount:${f.ns}:deployer`;
    assert.deepEqual(
      Object.entries(sa1?.serverSide ?? {})
        .map(([k, a]) => `${k} ${a.outcome} ${a.as}`)
        .sort(),
      [`ConfigMap/${f.ns}/sa1-config admitted ${as}`, `Secret/${f.ns}/sa1-secret refused ${as}`],
    );
    assert.match(sa1?.serverSide?.[`Secret/${f.ns}/sa1-secret`]?.message ?? '', /^403: .*forbidden/);
  });
});

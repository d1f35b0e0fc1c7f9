// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Observability through the commands a user runs (docs/observability.md): `kgraph controller` writes the
 * instance's events and serves its history on the metrics address; `kgraph get --history` prints it.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { freePort, spawnController, waitReadyz } from '../../support/controllerProcess.ts';
import { sharedControlPlane, uniqueName } from '../../support/controlPlane.ts';
import { adminClient, testNamespace } from '../../support/kube.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  ensureRgdCrd,
  eventually,
  instance,
  rgd,
  waitState,
} from '../rgd/support.ts';

describe('kgraph controller and kgraph get --history', () => {
  let client: RestClient;
  let proc: ChildProcess | undefined;
  let port: number;
  let kubeconfig: string;
  const suite = uniqueName('obs-cli');
  const f = { suite, group: `${suite}.kgraph.test`, ns: '' };

  before(async () => {
    client = await adminClient();
    await ensureRgdCrd();
    f.ns = await testNamespace('obs-cli');
    kubeconfig = (await sharedControlPlane()).kubeconfigPath;
    port = await freePort();
    proc = spawnController(kubeconfig, port, [
      '--no-graphs',
      '--namespace',
      f.ns,
      '--rgd-selector',
      `kgraph.test/suite=${suite}`,
    ]);
    await waitReadyz(port);
  });
  after(() => {
    proc?.kill('SIGTERM');
  });

  it('events from the controller process, the history from its metrics address', async () => {
    await applyRgd(
      client,
      rgd(f, 'cli', { kind: 'CliApp', spec: {} }, [{ id: 'c', template: cm('${schema.metadata.name}-c') }]),
    );
    await eventually(
      'the CRD served',
      async () => {
        client.discovery.invalidate(`${f.group}/v1alpha1`);
        return client
          .listAll({ apiVersion: `${f.group}/v1alpha1`, kind: 'CliApp', namespace: f.ns })
          .then(() => true)
          .catch(() => undefined);
      },
      60_000,
      250,
    );
    await applyInstance(client, instance(f, 'CliApp', 'one', {}));
    await waitState(client, f, 'CliApp', 'one', 'ACTIVE');

    const ev = await eventually('the ResourcesApplied event', async () => {
      const list = await client.listAll({ apiVersion: 'events.k8s.io/v1', kind: 'Event', namespace: f.ns });
      return (
        list.items as (KubeObject & { reason?: string; reportingController?: string; note?: string })[]
      ).find((e) => e.reason === 'ResourcesApplied');
    });
    assert.equal(ev.reportingController, 'kgraph/controller');
    assert.match(ev.note ?? '', /created 1 \(ConfigMap one-c\)/);

    const run = spawnSync(
      process.execPath,
      [
        'bin/kgraph.js',
        'get',
        'CliApp',
        'one',
        '-n',
        f.ns,
        '--kubeconfig',
        kubeconfig,
        '--history',
        '--controller',
        `127.0.0.1:${port}`,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^CliApp ${f.ns}/one: \\d+ pass\\(es\\), oldest first$`, 'm'));
    assert.match(run.stdout, /converged +Ready .*created 1/);
    assert.match(run.stdout, /nodes: c=ready/);

    const refused = spawnSync(
      process.execPath,
      [
        'bin/kgraph.js',
        'get',
        'CliApp',
        'one',
        '-n',
        f.ns,
        '--kubeconfig',
        kubeconfig,
        '--history',
        '--controller',
        '127.0.0.1:1',
      ],
      { encoding: 'utf8' },
    );
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /cannot reach the controller at http:\/\/127\.0\.0\.1:1/);
  });
});

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * `kgraph controller --rgd-max-graph-revisions N` (design/rgd.md §19.5): the flag reaches the RGD controller
 * of a real controller process, which then keeps only the newest N GraphRevisions of an RGD; its `/metrics`
 * carries kro's revision counters.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { installGraphCrd } from '../../../src/controller/graph/crd.ts';
import type { RestClient } from '../../../src/kube/index.ts';
import { freePort, spawnController, waitReadyz } from '../../support/controllerProcess.ts';
import { sharedControlPlane, uniqueName } from '../../support/controlPlane.ts';
import { adminClient, testNamespace } from '../../support/kube.ts';
import { applyRgd, cm, ensureRgdCrd, rgd, waitRgd } from './support.ts';

describe('kgraph controller --rgd-max-graph-revisions', () => {
  let client: RestClient;
  let proc: ChildProcess | undefined;
  let ns: string;
  let suite: string;

  before(async () => {
    client = await adminClient();
    ns = await testNamespace('rgd-revflag');
    suite = uniqueName('rgd-revflag');
    await ensureRgdCrd();
    await installGraphCrd(client);
    client.discovery.invalidate('internal.kro.run/v1alpha1');
  });
  after(() => {
    proc?.kill('SIGKILL');
  });

  it('keeps the newest two revisions', async () => {
    const cp = await sharedControlPlane();
    const port = await freePort();
    // Both controllers, as by default: /metrics renders one of their two registries, the revisions' own series too.
    proc = spawnController(cp.kubeconfigPath, port, [
      '--namespace',
      ns,
      '--rgd-selector',
      `kgraph.test/suite=${suite}`,
      '--rgd-max-graph-revisions',
      '2',
    ]);
    await waitReadyz(port, 'controller /readyz', 60_000, 50);
    const f = { suite, group: `${suite}.kgraph.test` };
    const name = `${suite}-keep2`;
    for (let i = 1; i <= 4; i++) {
      await applyRgd(
        client,
        rgd(f, name, { kind: 'KeepTwo', spec: {} }, [{ id: 'a', template: cm('x', { v: `${i}` }) }]),
      );
      await waitRgd(client, name, 'Ready', 'True', undefined, 90_000);
    }
    const list = await client.list(
      { apiVersion: 'internal.kro.run/v1alpha1', kind: 'GraphRevision' },
      { fieldSelector: `spec.snapshot.name=${name}` },
    );
    const numbers = list.items.map((r) => (r.spec as { revision: number }).revision).sort((a, b) => a - b);
    assert.deepEqual(numbers, [3, 4]);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    assert.match(metrics, /^rgd_graph_revision_issue_total\{reason="no_revision"\} 1$/m);
    assert.match(metrics, /^rgd_graph_revision_issue_total\{reason="spec_changed"\} 3$/m);
    assert.match(metrics, /^rgd_graph_revision_gc_deleted_total 2$/m);
  });
});

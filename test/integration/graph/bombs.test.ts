// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * A Graph carrying CEL bombs cannot stall the controller: its expressions are
 * charged before they run and stopped with an ExpressionError condition, and the evaluation returns to
 * the event loop between expressions, so /healthz answers and another Graph's drift is repaired while
 * the bomb Graph is being reconciled. `kgraph controller` runs as a child process (two workers).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import type { RestClient } from '../../../src/kube/index.ts';
import { freePort, spawnController, waitReadyz } from '../../support/controllerProcess.ts';
import { sharedControlPlane } from '../../support/controlPlane.ts';
import { adminClient } from '../../support/kube.ts';
import {
  applyGraph,
  cm,
  conditionOf,
  ensureCrd,
  eventually,
  getCm,
  graph,
  graphNamespace,
  waitCondition,
} from './support.ts';

/** Expressions that hit the cost budget (each ≈ 1,000,000 units of work before it is stopped). */
const HEAVY = [
  '${string(lists.range(1000).map(i, lists.range(1000).map(j, i + j)).size())}',
  '${string(lists.range(100000).map(x, [x]).distinct().size())}',
  '${string(lists.range(100000).all(x, lists.range(100000).exists(y, y == x)))}',
];

describe('CEL bombs and the controller', () => {
  let client: RestClient;
  let bombNs: string;
  let victimNs: string;
  let proc: ChildProcess | undefined;
  let port: number;

  before(async () => {
    await ensureCrd();
    client = await adminClient();
    bombNs = await graphNamespace('gc-bomb');
    victimNs = await graphNamespace('gc-victim');
    const cp = await sharedControlPlane();
    port = await freePort();
    proc = spawnController(cp.kubeconfigPath, port, ['--namespace', bombNs, victimNs, '--concurrency', '2']);
    await waitReadyz(port, 'controller /readyz', 60_000, 50);
  });
  after(async () => {
    if (proc && proc.exitCode === null) {
      proc.kill('SIGTERM');
      await once(proc, 'exit');
    }
  });

  it('the bomb Graph fails with ExpressionError while /healthz answers and another Graph is repaired', async () => {
    await applyGraph(
      client,
      graph(victimNs, 'victim', [{ id: 'cm', template: cm('victim-cm', { k: 'v' }) }]),
    );
    await waitCondition(client, victimNs, 'victim', 'Ready', 'True', undefined, 60_000);

    // The bomb (now linear), plus expressions that need the cost budget to stop them.
    const nodes = [
      { id: 'bomb', template: cm('bomb-cm', { n: '${string(lists.range(100000).distinct().size())}' }) },
      ...Array.from({ length: 6 }, (_, i) => ({
        id: `heavy${i}`,
        template: cm(`heavy-${i}`, { v: HEAVY[i % HEAVY.length] as string }),
      })),
    ];
    await applyGraph(client, graph(bombNs, 'bomb', nodes));
    const failed = await waitCondition(
      client,
      bombNs,
      'bomb',
      'ResourcesConverged',
      'False',
      'ExpressionError',
      60_000,
    );
    assert.match(conditionOf(failed, 'ResourcesConverged')?.message ?? '', /cost limit exceeded/);
    assert.equal(await getCm(client, bombNs, 'bomb-cm'), undefined, 'nothing applied after a hard error');

    // Keep the bomb Graph reconciling (each edit is a new generation) while the victim drifts.
    let stop = false;
    const churn = (async () => {
      for (let g = 0; !stop; g++) {
        await applyGraph(client, graph(bombNs, 'bomb', [...nodes, { id: 'gen', def: { g: String(g) } }]));
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    try {
      let worstHealthMs = 0;
      for (let round = 0; round < 3; round++) {
        const t0 = performance.now();
        const health = await fetch(`http://127.0.0.1:${port}/healthz`);
        worstHealthMs = Math.max(worstHealthMs, performance.now() - t0);
        assert.equal(health.status, 200);

        const drift = `drift-${round}`;
        await client.apply(
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'victim-cm', namespace: victimNs },
            data: { k: drift },
          },
          { fieldManager: 'kubectl', force: true },
        );
        const started = performance.now();
        await eventually(
          'victim drift repaired',
          async () =>
            ((await getCm(client, victimNs, 'victim-cm'))?.data as Record<string, string> | undefined)?.k ===
            'v'
              ? true
              : undefined,
          2_000,
          25,
        );
        const repairMs = performance.now() - started;
        assert.ok(repairMs < 2_000, `drift repaired in ${repairMs.toFixed(0)} ms`);
        process.stderr.write(
          `bombs: round ${round} drift repaired in ${repairMs.toFixed(0)} ms, /healthz ${worstHealthMs.toFixed(0)} ms\n`,
        );
      }
      // Before: unanswered for minutes. One expression (≤ the cost budget, a few hundred ms of CPU) is the
      // longest the event loop is held; on the shared test machine that can stretch to seconds of wall time.
      assert.ok(worstHealthMs < 5_000, `/healthz answered in ${worstHealthMs.toFixed(0)} ms`);
    } finally {
      stop = true;
      await churn;
    }
  });
});

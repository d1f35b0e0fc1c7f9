/**
 * `render --until-converged` echoes each rendered object as observed over what --state says the server
 * holds, so server-filled fields (a Service's clusterIP, uid) survive the echo and readyWhen on them holds.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const root = join(import.meta.dirname, '../../..');

describe('render --until-converged echo', () => {
  it('keeps server-filled fields from --state, so a converged pass is as ready as a single one', () => {
    const r = spawnSync(
      process.execPath,
      [
        join(root, 'bin/kgraph.js'),
        'render',
        join(root, 'examples/graphs/showcase.yaml'),
        '--state',
        join(root, 'examples/cluster/showcase-settings.yaml'),
        '--state',
        join(root, 'examples/state/showcase-observed.yaml'),
        '--until-converged',
        '-o',
        'json',
      ],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { nodes: { id: string; state: string }[] };
    const tierServices = out.nodes.find((n) => n.id === 'tierServices');
    assert.equal(tierServices?.state, 'ready');
  });
});

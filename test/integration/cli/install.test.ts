/**
 * `kgraph install` on the real API server: the Graph, RGD and GraphRevision CRDs, each reported Established
 * (kubectl's `<resource>/<name>` form), and a second run changes nothing but says the same.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../../../src/localplane/localControlPlane.ts';
import { sharedControlPlane } from '../../support/controlPlane.ts';

const cli = join(repoRoot, 'bin', 'kgraph.js');

describe('kgraph install', () => {
  it('installs the Graph, RGD, GraphRevision and GraphRollout CRDs and says so', async () => {
    const cp = await sharedControlPlane();
    const run = () =>
      execFileSync(process.execPath, [cli, 'install', '--kubeconfig', cp.kubeconfigPath], {
        encoding: 'utf8',
        timeout: 120_000,
      });
    const expected = [
      'customresourcedefinition.apiextensions.k8s.io/graphs.kro.run established',
      'customresourcedefinition.apiextensions.k8s.io/resourcegraphdefinitions.kro.run established',
      'customresourcedefinition.apiextensions.k8s.io/graphrevisions.internal.kro.run established',
      'customresourcedefinition.apiextensions.k8s.io/graphrollouts.kgraph.dev established',
      '',
    ].join('\n');
    assert.equal(run(), expected);
    assert.equal(run(), expected);
  });
});

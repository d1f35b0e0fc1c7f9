import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import YAML from 'yaml';
import { runSynth } from '../../../src/cli/commands/synth.ts';
import { type Manifest, manifestHash, planOrder, SdkCode } from '../../../src/sdk/index.ts';
import { throwsCode } from './helpers.ts';

const load = async () =>
  (await runSynth('examples/sdk/webapp.ts', { cluster: 'examples/sdk/cluster.yaml' })).documents.map(
    (d) => YAML.parse(d) as Manifest,
  );

describe('synth output contract: order lives in annotations', () => {
  it('identity hashes are recomputable from the YAML alone', async () => {
    const docs = await load();
    const order = planOrder(docs);
    const hashes = new Set(order.map((o) => o.hash));
    for (const d of docs) {
      for (const e of (d.metadata.annotations?.['kix.run/depends-on'] ?? '').split(',').filter(Boolean)) {
        assert.ok(hashes.has(e.replace(/^(requires|extra):/, '')), `entry ${e} resolves`);
      }
    }
    assert.equal(manifestHash(docs[0]!).length, 32);
  });

  it('shuffling the document order of the synthesized YAML gives the same apply order', async () => {
    const docs = await load();
    const expected = planOrder(docs).map((o) => o.key);
    assert.deepEqual(
      expected,
      planOrder(docs).map((o) => o.key),
      'deterministic',
    );
    const shuffled = [...docs].reverse();
    shuffled.push(shuffled.splice(2, 1)[0]!);
    assert.deepEqual(
      planOrder(shuffled).map((o) => o.key),
      expected,
    );
  });

  it('edges keep their kind (data, requires, extra)', async () => {
    const docs = await load();
    const dep = planOrder(docs).find((o) => o.kind === 'Deployment')!;
    assert.ok(dep.dependsOn.some((e) => e.kind === 'requires' && e.key.includes('/Job/')));
    assert.ok(dep.dependsOn.some((e) => e.kind === 'data' && e.key.endsWith('/ConfigMap/webapp-config')));
  });

  it('a depends-on entry matching no object is an error (e.g. a manifest edited after synth)', async () => {
    const docs = await load();
    const cm = docs.find((d) => d.kind === 'ConfigMap')!;
    cm.data = { changed: 'yes' };
    throwsCode(() => planOrder(docs), SdkCode.unresolvedDependency, 'matches no object');
  });
});

describe('synth output contract: namespaces', () => {
  it('a Namespace in the set is ordered before the objects it contains, without a depends-on entry', async () => {
    const docs = await load();
    const order = planOrder([...docs].reverse());
    assert.equal(order[0]!.kind, 'Namespace');
    const cm = order.find((o) => o.kind === 'ConfigMap')!;
    assert.deepEqual(
      cm.dependsOn.map((e) => e.kind),
      ['namespace'],
    );
    assert.equal(cm.manifest.metadata.annotations?.['kix.run/depends-on'], undefined);
  });
});

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * What an RGD instance costs the API server while it converges, asserted on the
 * controller's own write requests: the instance's parent metadata (design/graph.md §23.3 labels, the finalizer and the
 * ApplySet inventory of design/graph.md §22.2 step 2) goes out in one apply before the first child, each child once,
 * and the status once — children + 2, also when a dependent child renders only in a later pass.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
import type { RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  getInstance,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from './support.ts';

describe('RGD instance writes while converging', () => {
  let f: RgdFixture;
  let client: RestClient;
  let controller: RgdController;
  /** The controller's writes, in order: `main` / `status` of an instance (by name), or a child's name. */
  const writes: { target: string; what: string }[] = [];

  before(async () => {
    f = await rgdFixture('rgd-writes');
    ({ client, controller } = f);
    controller.client.counters.listen((verb, _method, path) => {
      if (!['create', 'patch', 'apply', 'update', 'delete'].includes(verb)) return;
      const i = /\/writecounts\/([^/?]+)(\/status)?(\?|$)/.exec(path);
      if (i?.[1]) writes.push({ target: i[1], what: i[2] ? 'status' : 'main' });
      const c = /\/configmaps\/([^/?]+)(\?|$)/.exec(path);
      if (c?.[1]) writes.push({ target: c[1].split('-')[0] ?? '', what: c[1] });
    });
  });
  after(async () => {
    controller.client.counters.listen(undefined);
    await stopRgdController(controller);
  });

  it('one parent write, one per child and one status: children + 2', async () => {
    await applyRgd(
      client,
      rgd(f, 'writecount', { kind: 'WriteCount', spec: {}, status: { copied: '${dependent.data.from}' } }, [
        { id: 'first', template: cm('${schema.metadata.name}-first', { v: 'one' }) },
        { id: 'second', template: cm('${schema.metadata.name}-second', { v: 'two' }) },
        // Renders only once `first` is observed: a second pass of the same reconcile.
        { id: 'dependent', template: cm('${schema.metadata.name}-dep', { from: '${first.data.v}' }) },
      ]),
    );
    await waitRgd(client, 'writecount', 'Ready', 'True');
    await controller.idle();
    const reconcilesBefore = controller.metrics.reconcileCount();
    await applyInstance(client, instance(f, 'WriteCount', 'wa', {}));
    await waitState(client, f, 'WriteCount', 'wa', 'ACTIVE');
    // The echoes of its own writes (children, parent, status) arrive after this; none is news.
    await new Promise((r) => setTimeout(r, 1_000));
    await controller.idle();
    assert.equal(
      controller.metrics.reconcileCount() - reconcilesBefore,
      1,
      'one reconcile: the echoes of its own writes did not queue the instance again',
    );

    const mine = writes.filter((w) => w.target === 'wa');
    const main = mine.filter((w) => w.what === 'main');
    const status = mine.filter((w) => w.what === 'status');
    const children = mine.filter((w) => w.what !== 'main' && w.what !== 'status');
    assert.deepEqual(
      children.map((c) => c.what).sort(),
      ['wa-dep', 'wa-first', 'wa-second'],
      JSON.stringify(mine),
    );
    assert.equal(main.length, 1, `parent metadata writes: ${JSON.stringify(mine)}`);
    assert.equal(status.length, 1, `status writes: ${JSON.stringify(mine)}`);
    assert.equal(mine.length, children.length + 2, JSON.stringify(mine));
    // The parent write came before any child, and it carried everything design/graph.md §22.2 and §23.3 ask for.
    assert.equal(mine[0]?.what, 'main', JSON.stringify(mine));
    const inst = await getInstance(client, f, 'WriteCount', 'wa');
    assert.ok(inst?.metadata.finalizers?.includes('kro.run/finalizer'), 'the finalizer is set');
    assert.ok(
      inst?.metadata.annotations?.['applyset.kubernetes.io/contains-group-kinds']?.includes('ConfigMap'),
      JSON.stringify(inst?.metadata.annotations),
    );
    assert.equal((inst?.status as { copied?: string } | undefined)?.copied, 'one');
  });
});

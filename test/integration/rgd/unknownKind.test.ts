// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * An RGD that uses a kind the cluster does not serve yet becomes Active on a retry after the kind
 * appears, without a CRD event reaching the registrar: in a real controller the event can come before
 * the API server publishes the kind's OpenAPI (publishing lags Established), so the timer's retry is the
 * one that must compile again. The registrar runs on the real API server with its real compiler and
 * instance server; no CRD watch is wired to it, so nothing but its own retry can see the new kind.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { GraphCompiler } from '../../../src/controller/core/graphCompiler.ts';
import { WatchSet } from '../../../src/controller/core/watches.ts';
import { GroupKindVersions } from '../../../src/controller/rgd/children.ts';
import { InstanceServer } from '../../../src/controller/rgd/instanceServer.ts';
import { RgdRegistrar } from '../../../src/controller/rgd/registrar.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { uniqueName } from '../../support/controlPlane.ts';
import { adminClient, eventually, installWidgetCRD } from '../../support/kube.ts';
import { applyRgd, ensureRgdCrd, getRgd, rgd } from './support.ts';

describe('RGD registrar: a kind that appears without a CRD event', () => {
  let client: RestClient;
  let server: InstanceServer | undefined;
  const cleanup: KubeObject[] = [];

  after(async () => {
    await server?.stopAll();
    for (const o of cleanup.reverse())
      await client
        .delete({
          apiVersion: o.apiVersion,
          kind: o.kind,
          name: o.metadata.name ?? '',
        })
        .catch(() => undefined);
    client?.close();
  });

  it('compiles again on the retry and becomes Active once the kind is served', async () => {
    await ensureRgdCrd();
    client = await adminClient();
    const suite = uniqueName('rgd-unknown');
    const gadgetGroup = `${uniqueName('g')}.kgraph.test`;
    const f = { suite, group: `${suite}.kgraph.test` };
    const log = pino({ level: 'silent' });
    const watches = new WatchSet(client, { resyncMs: 36_000_000, onEvent: () => {}, onError: () => {} });
    server = new InstanceServer({
      client,
      watches,
      versions: new GroupKindVersions(client.discovery),
      log,
      resyncMs: 36_000_000,
    });
    const rgds = new Map<string, KubeObject>();
    const registrar = new RgdRegistrar({
      client,
      compiler: new GraphCompiler(client),
      server,
      rgds: { get: (n) => rgds.get(n), list: () => [...rgds.values()] },
      crds: { get: () => undefined, list: () => [] },
      log,
    });

    const r = rgd(f, 'gadget-user', { kind: 'GadgetUser', spec: { name: 'string' } }, [
      {
        id: 'widget',
        template: {
          apiVersion: `${gadgetGroup}/v1`,
          kind: 'Widget',
          metadata: { name: '${schema.spec.name}' },
          spec: { size: 1 },
        },
      },
    ]);
    const stored = await applyRgd(client, r);
    cleanup.push(stored);
    rgds.set('gadget-user', stored);

    const first = await registrar.reconcile('gadget-user');
    assert.equal(first.kind, 'inactive');
    assert.equal(first.reason, 'InvalidResourceGraph');
    assert.ok(first.requeueAfterMs !== undefined, 'an unknown kind is retried on a timer');

    const widget = await installWidgetCRD(client, gadgetGroup);
    cleanup.push({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${widget.group}` },
    });

    // The timer's retries, as the work queue would run them: no invalidate(), no CRD event.
    const outcome = await eventually(
      'the retry compiles the RGD against the new kind',
      async () => {
        rgds.set('gadget-user', (await getRgd(client, 'gadget-user')) ?? stored);
        const o = await registrar.reconcile('gadget-user');
        return o.kind === 'active' ? o : undefined;
      },
      60_000,
    );
    assert.equal(outcome.kind, 'active');
    const generated = `gadgetusers.${f.group}`;
    cleanup.push({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: generated },
    });
    const accepted = (
      (await getRgd(client, 'gadget-user'))?.status as { conditions?: { type: string; status: string }[] }
    )?.conditions?.find((c) => c.type === 'GraphAccepted');
    assert.equal(accepted?.status, 'True');
  });
});

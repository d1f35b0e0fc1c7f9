// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Without `--host-kubeconfig` the host plane does not exist and host nodes fail closed (design/planes.md §5.4):
 * the node and its dependents are not processed, independent nodes are, the pass is incomplete
 * so nothing is pruned, and the instance shows Ready=False/TargetUnavailable naming the applier (template)
 * or the reader (externalRef). Two real control planes: management and one consumer.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../src/kube/index.ts';
import { AV, apply, blueprint, cmT, cond, eventually, getObj, planesFixture } from './support.ts';

const bp = (name: string, kind: string, resources: unknown[]): KubeObject =>
  blueprint(name, kind, resources, { spec: { name: 'string', gate: 'boolean | default=true' } });

describe('planes: no host cluster configured', () => {
  const p = planesFixture({
    namespaces: ['ns-a'],
    controller: { host: false },
    blueprints: [
      bp('hostwrite', 'HostWrite', [
        { id: 'onHost', target: 'host', template: cmT('${schema.spec.name}-host', {}, 'default') },
        {
          id: 'dependent',
          template: cmT('${schema.spec.name}-dep', { from: '${onHost.metadata.name}' }),
        },
        { id: 'independent', template: cmT('${schema.spec.name}-ind') },
        { id: 'gated', includeWhen: ['${schema.spec.gate}'], template: cmT('${schema.spec.name}-gated') },
      ]),
      bp('hostread', 'HostRead', [
        {
          id: 'hostRef',
          target: 'host',
          externalRef: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: '${schema.spec.name}-ext', namespace: 'default' },
          },
        },
        { id: 'independent', template: cmT('${schema.spec.name}-ind') },
      ]),
    ],
    grants: ['hostwrite', 'hostread'],
  });

  it('a host template fails closed: TargetUnavailable, dependents skipped, independent nodes applied', async () => {
    await apply(p.consumer.admin, {
      apiVersion: AV,
      kind: 'HostWrite',
      metadata: { name: 'w', namespace: 'ns-a' },
      spec: { name: 'w' },
    });
    const o = await eventually('TargetUnavailable', async () => {
      const x = await getObj(p.consumer.admin, AV, 'HostWrite', 'w', 'ns-a');
      return cond(x, 'Ready')?.reason === 'TargetUnavailable' ? x : undefined;
    });
    assert.equal(cond(o, 'Ready')?.status, 'False');
    assert.match(cond(o, 'Ready')?.message ?? '', /resource onHost: no applier configured for target host/);
    assert.ok(await getObj(p.consumer.admin, 'v1', 'ConfigMap', 'w-ind', 'ns-a'));
    assert.ok(await getObj(p.consumer.admin, 'v1', 'ConfigMap', 'w-gated', 'ns-a'));
    assert.equal(await getObj(p.consumer.admin, 'v1', 'ConfigMap', 'w-dep', 'ns-a'), undefined);
    // Nothing is written to the management cluster in place of the missing host.
    assert.equal(await getObj(p.management.admin, 'v1', 'ConfigMap', 'w-host', 'default'), undefined);
  });

  it('the incomplete pass prunes nothing: a gated child stays after its gate flips', async () => {
    await apply(p.consumer.admin, {
      apiVersion: AV,
      kind: 'HostWrite',
      metadata: { name: 'w', namespace: 'ns-a' },
      spec: { name: 'w', gate: false },
    });
    // Wait for a pass on the new generation, then make sure the excluded child was not reclaimed.
    await eventually('observed generation 2', async () => {
      const x = await getObj(p.consumer.admin, AV, 'HostWrite', 'w', 'ns-a');
      return cond(x, 'Ready')?.observedGeneration === x?.metadata.generation ? true : undefined;
    });
    await new Promise((r) => setTimeout(r, 2_000));
    assert.ok(await getObj(p.consumer.admin, 'v1', 'ConfigMap', 'w-gated', 'ns-a'));
  });

  it('a host externalRef fails closed with "no reader configured for target host"', async () => {
    await apply(p.consumer.admin, {
      apiVersion: AV,
      kind: 'HostRead',
      metadata: { name: 'r', namespace: 'ns-a' },
      spec: { name: 'r' },
    });
    const o = await eventually('TargetUnavailable', async () => {
      const x = await getObj(p.consumer.admin, AV, 'HostRead', 'r', 'ns-a');
      return cond(x, 'Ready')?.reason === 'TargetUnavailable' ? x : undefined;
    });
    assert.match(cond(o, 'Ready')?.message ?? '', /resource hostRef: no reader configured for target host/);
    assert.ok(await getObj(p.consumer.admin, 'v1', 'ConfigMap', 'r-ind', 'ns-a'));
  });
});

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * A planes instance whose projected status cannot be stored (design/planes.md §2.6): its status copies
 * an 820,000-character spec field, so the instance with it is over etcd's 1.5 MiB request limit in the
 * consumer cluster. The instance must still say so — `state: ERROR`, Ready=False `StatusTooLarge`
 * naming the field — and the controller go on: once the field shrinks the instance is Ready.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AV, apply, blueprint, cmT, cond, getObj, planesFixture, waitFor } from './support.ts';

describe('planes: an instance status too large to store', () => {
  const p = planesFixture({
    namespaces: ['ns-a'],
    blueprints: [
      blueprint(
        'echo',
        'Echo',
        [
          {
            id: 'cfg',
            template: cmT('${schema.metadata.name}-cfg', { size: '${string(size(schema.spec.blob))}' }),
          },
        ],
        { spec: { blob: 'string' }, status: { copy: '${schema.spec.blob}', config: '${cfg.metadata.name}' } },
      ),
    ],
    grants: ['echo'],
  });
  const read = () => getObj(p.consumer.admin, AV, 'Echo', 'big', 'ns-a');

  it('writes state ERROR with StatusTooLarge naming the field, then recovers', async () => {
    const echo = (blob: string) =>
      apply(p.consumer.admin, {
        apiVersion: AV,
        kind: 'Echo',
        metadata: { name: 'big', namespace: 'ns-a' },
        spec: { blob },
      });
    await echo('x'.repeat(820_000));
    const o = await waitFor(
      'StatusTooLarge',
      read,
      (x) => cond(x, 'Ready')?.reason === 'StatusTooLarge',
      90_000,
    );
    const status = o.status as Record<string, unknown>;
    assert.equal(status.state, 'ERROR');
    assert.equal(cond(o, 'Ready')?.status, 'False');
    assert.match(cond(o, 'Ready')?.message ?? '', /status\.copy \(8200\d\d bytes\)/);
    assert.equal(status.copy, undefined);
    const child = await getObj(p.consumer.admin, 'v1', 'ConfigMap', 'big-cfg', 'ns-a');
    assert.equal((child?.data as Record<string, string> | undefined)?.size, '820000');

    await echo('small');
    const fixed = await waitFor('Ready', read, (x) => cond(x, 'Ready')?.status === 'True', 90_000);
    assert.equal((fixed.status as Record<string, unknown>).copy, 'small');
  });
});

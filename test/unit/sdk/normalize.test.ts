import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keep, recursiveUpdate } from '../../../src/sdk/index.ts';
import { materialize } from '../../../src/sdk/materialize.ts';
import { find, get, setup } from './helpers.ts';

const render = (v: unknown) => materialize(v, 'final').value;

describe('null stripping, collapse and keep', () => {
  it('null stripping: a container with command: null has no command key and no null ever appears', () => {
    const { session, scope } = setup();
    scope.mkDeployment({
      name: 'w',
      spec: {
        selector: { matchLabels: { app: 'w' } },
        template: { spec: { containers: [{ name: 'a', image: 'x:1', command: null, args: undefined }] } },
      },
    });
    const m = find(session.finalize(), 'Deployment', 'w');
    const c = get(m, 'spec.template.spec.containers.0') as Record<string, unknown>;
    assert.equal('command' in c, false);
    assert.equal('args' in c, false);
    assert.ok(!JSON.stringify(m).includes('null'));
  });

  it('collapse: an object whose fields are all null disappears', () => {
    assert.deepEqual(render({ name: 'a', resources: { limits: null, requests: null } }), { name: 'a' });
  });

  it('collapse: a list whose elements are all null disappears', () => {
    assert.deepEqual(render({ a: 1, l: [null, undefined] }), { a: 1 });
  });

  it('collapse is recursive and bottom-up', () => {
    assert.deepEqual(render({ keep: 1, a: { b: { c: null }, d: [{ e: null }] } }), { keep: 1 });
  });

  it('literal empties are preserved without keep', () => {
    assert.deepEqual(render({ emptyDir: {}, list: [] }), { emptyDir: {}, list: [] });
  });

  it('keep({ sizeLimit: null, medium: null }) renders {}', () => {
    assert.deepEqual(render({ emptyDir: keep({ sizeLimit: null, medium: null }) }), { emptyDir: {} });
  });

  it('keep({ a: 1, b: null }) renders { a: 1 }', () => {
    assert.deepEqual(render(keep({ a: 1, b: null })), { a: 1 });
  });

  it('keep on a list of nulls renders []', () => {
    assert.deepEqual(render({ l: keep([null, null]) }), { l: [] });
  });

  it('the keep marker survives spreads and deep merges and never appears in output', () => {
    const kept = keep({ a: null as null | number });
    const spread = { ...kept };
    const merged = recursiveUpdate({ x: kept }, { x: { b: null } });
    assert.deepEqual(render({ s: spread, m: merged }), { s: {}, m: { x: {} } });
    assert.ok(!JSON.stringify(render({ s: spread })).includes('keep'));
  });
});

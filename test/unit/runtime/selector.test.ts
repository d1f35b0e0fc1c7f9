import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchesSelector, toLabelSelector } from '../../../src/runtime/selector.ts';

describe('label selectors', () => {
  it('an empty selector matches everything', () => {
    const s = toLabelSelector({});
    assert.ok(s.ok);
    assert.equal(matchesSelector(s.selector, {}), true);
  });

  it('matchLabels and every matchExpressions operator', () => {
    const s = toLabelSelector({
      matchLabels: { team: 'a' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod', 'stage'] },
        { key: 'tier', operator: 'NotIn', values: ['db'] },
        { key: 'owner', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    });
    assert.ok(s.ok);
    const base = { team: 'a', env: 'prod', owner: 'x' };
    assert.equal(matchesSelector(s.selector, base), true);
    assert.equal(matchesSelector(s.selector, { ...base, team: 'b' }), false);
    assert.equal(matchesSelector(s.selector, { ...base, env: 'dev' }), false);
    assert.equal(matchesSelector(s.selector, { ...base, tier: 'db' }), false);
    assert.equal(matchesSelector(s.selector, { team: 'a', env: 'prod' }), false);
    assert.equal(matchesSelector(s.selector, { ...base, legacy: '1' }), false);
  });

  it('rejects shapes that are not a LabelSelector instead of matching everything', () => {
    assert.match(
      (toLabelSelector({ matchLabel: { a: 'b' } }) as { message: string }).message,
      /unknown field "matchLabel"/,
    );
    assert.equal(toLabelSelector('team=a').ok, false);
    assert.equal(
      toLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Equals', values: ['x'] }] }).ok,
      false,
    );
    assert.equal(toLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In' }] }).ok, false);
    assert.equal(toLabelSelector({ matchLabels: { a: 1 } }).ok, false);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allowsBreakingChanges, compareCrds, compareSchemas } from '../../../src/schema/crd/compat.ts';
import { generateCrdFromSchemaSection } from '../../../src/schema/crd/generate.ts';
import type { OpenAPISchema } from '../../../src/schema/openapi.ts';

function spec(fields: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const r = generateCrdFromSchemaSection({ apiVersion: 'v1alpha1', kind: 'App', spec: fields, ...extra });
  assert.deepEqual(r.diagnostics, []);
  return r.crd;
}

function breaking(before: Record<string, unknown>, after: Record<string, unknown>, conservative = false) {
  return compareCrds(spec(before), spec(after), { conservative }).breaking.map((c) => [c.kind, c.path]);
}

describe('breaking-change detection between generated CRDs', () => {
  it('an identical schema has no changes', () => {
    const r = compareCrds(spec({ a: 'string' }), spec({ a: 'string' }));
    assert.deepEqual(r, { breaking: [], nonBreaking: [] });
  });

  it('field removal is breaking', () => {
    assert.deepEqual(breaking({ a: 'string', b: 'string' }, { a: 'string' }), [
      ['PropertyRemoved', 'v1alpha1:spec.b'],
    ]);
  });

  it('type changes are breaking', () => {
    assert.deepEqual(breaking({ a: 'string' }, { a: 'integer' }), [['TypeChanged', 'v1alpha1:spec.a']]);
    assert.deepEqual(breaking({ a: '[]string' }, { a: '[]integer' }), [['TypeChanged', 'v1alpha1:spec.a[]']]);
  });

  it('a new required field without default is breaking; optional or defaulted is not', () => {
    assert.deepEqual(breaking({ a: 'string' }, { a: 'string', b: 'string | required=true' }), [
      ['PropertyAdded', 'v1alpha1:spec.b'],
    ]);
    assert.deepEqual(breaking({ a: 'string' }, { a: 'string', b: 'string' }), []);
    assert.deepEqual(breaking({ a: 'string' }, { a: 'string', b: 'string | required=true default=x' }), []);
  });

  it('enum restriction is breaking, expansion is not', () => {
    assert.deepEqual(breaking({ a: 'string | enum="x,y"' }, { a: 'string | enum="x"' }), [
      ['EnumRestricted', 'v1alpha1:spec.a'],
    ]);
    assert.deepEqual(breaking({ a: 'string | enum="x"' }, { a: 'string | enum="x,y"' }), []);
  });

  it('pattern changes and additions are breaking, removal is not', () => {
    assert.deepEqual(breaking({ a: 'string | pattern="^a"' }, { a: 'string | pattern="^b"' }), [
      ['PatternChanged', 'v1alpha1:spec.a'],
    ]);
    assert.deepEqual(breaking({ a: 'string' }, { a: 'string | pattern="^b"' }), [
      ['PatternAdded', 'v1alpha1:spec.a'],
    ]);
    assert.deepEqual(breaking({ a: 'string | pattern="^a"' }, { a: 'string' }), []);
  });

  it('tightened bounds and newly required fields are breaking only when conservative', () => {
    const before = { n: 'integer | maximum=10', s: 'string' };
    const after = { n: 'integer | maximum=5', s: 'string | required=true' };
    assert.deepEqual(breaking(before, after), []);
    assert.deepEqual(breaking(before, after, true), [
      ['ConstraintTightened', 'v1alpha1:spec.n'],
      ['RequiredAdded', 'v1alpha1:spec.s'],
    ]);
  });

  it('removing a version or changing the scope is breaking', () => {
    const a = spec({ a: 'string' });
    const b = generateCrdFromSchemaSection({ apiVersion: 'v1beta1', kind: 'App', scope: 'Cluster' }).crd;
    assert.deepEqual(
      compareCrds(a, b).breaking.map((c) => c.kind),
      ['ScopeChanged', 'VersionRemoved'],
    );
  });

  it('status fields are compared too (a status type change is breaking)', () => {
    const s = (status: Record<string, OpenAPISchema>) => ({ type: 'object' as const, properties: status });
    const r = compareSchemas(s({ url: { type: 'string' } }), s({ url: { type: 'integer' } }));
    assert.deepEqual(
      r.breaking.map((c) => c.message),
      ['type changed from string to integer'],
    );
  });

  it('the kro.run/allow-breaking-changes annotation opts out', () => {
    assert.equal(
      allowsBreakingChanges({ metadata: { annotations: { 'kro.run/allow-breaking-changes': 'true' } } }),
      true,
    );
    assert.equal(
      allowsBreakingChanges({ metadata: { annotations: { 'kro.run/allow-breaking-changes': 'yes' } } }),
      false,
    );
    assert.equal(allowsBreakingChanges({}), false);
  });
});

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluate } from '@marcbachmann/cel-js';
import { scanValue } from '../../../src/expr/scan.ts';
import { mulberry32 } from '../../support/prng.ts';

const ALPHABET = ['$', '{', '}', "'", '"', '\\', 'r', 'a', ' ', '\n', '${', '}', 'é', '😀', '"""', "'''"];

function randomValue(next: () => number): string {
  const n = Math.floor(next() * 12);
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return s;
}

describe('scanValue: properties over random inputs', () => {
  it('never throws, and parts always reassemble the original value', () => {
    const next = mulberry32(42);
    let scannedTemplates = 0;
    for (let i = 0; i < 20000; i++) {
      const value = randomValue(next);
      const r = scanValue(value);
      if (!r.ok) {
        const offset = r.diagnostic.location?.offset ?? -1;
        assert.ok(offset >= 0 && offset < value.length, `offset in range for ${JSON.stringify(value)}`);
        assert.equal(value.slice(offset, offset + 2) === '${' || r.diagnostic.code !== 'KG1001', true);
        continue;
      }
      const v = r.value;
      if (v.kind === 'literal') {
        assert.equal(v.value.includes('${'), false);
        continue;
      }
      const parts =
        v.kind === 'standalone' ? [{ kind: 'expression' as const, expression: v.expression }] : [...v.parts];
      let rebuilt = '';
      for (const p of parts) {
        if (p.kind === 'literal') {
          assert.equal(p.offset, rebuilt.length);
          rebuilt += p.text;
        } else {
          assert.equal(p.expression.offset, rebuilt.length);
          assert.equal(p.expression.sourceOffset, p.expression.offset + 2);
          rebuilt += `\${${p.expression.source}}`;
          assert.equal(p.expression.end, rebuilt.length);
        }
      }
      assert.equal(rebuilt, value);
      if (v.kind === 'template') scannedTemplates++;
    }
    assert.ok(scannedTemplates > 100, `exercised templates (${scannedTemplates})`);
  });

  it('templates of random literal text around string expressions evaluate to the substituted text', () => {
    const next = mulberry32(7);
    for (let i = 0; i < 500; i++) {
      const literal = () => randomValue(next).replaceAll('${', '$ {');
      const a = literal();
      const b = literal();
      const value = `${a}\${x}${b}\${'lit'}`;
      const r = scanValue(value);
      assert.ok(r.ok && r.value.kind === 'template', JSON.stringify(value));
      if (!r.ok || r.value.kind !== 'template') continue;
      assert.equal(evaluate(r.value.compiled.cel, { x: 'X' }), `${a}X${b}lit`, JSON.stringify(value));
    }
  });
});

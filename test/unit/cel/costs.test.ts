import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { costTableMarkdown, FUNCTION_COSTS } from '../../../src/cel/costs.ts';
import { baseEnvironment } from '../../../src/cel/index.ts';

const docs = join(import.meta.dirname, '../../../docs/cel.md');

describe('CEL cost table', () => {
  it('every function of the environment has its own cost formula (macros excepted)', () => {
    const missing = new Set<string>();
    for (const fn of baseEnvironment().engine.getDefinitions().functions) {
      const macro = fn.params.some((p: { type: string }) => p.type === 'ast');
      if (!macro && !Object.hasOwn(FUNCTION_COSTS, fn.name)) missing.add(fn.signature);
    }
    assert.deepEqual([...missing], []);
  });

  it('docs/cel.md holds the table as the code computes it', () => {
    const text = readFileSync(docs, 'utf8');
    const start = text.indexOf('<!-- cost-table:start -->');
    const end = text.indexOf('<!-- cost-table:end -->');
    assert.ok(start >= 0 && end > start, 'cost-table markers');
    assert.equal(text.slice(start + '<!-- cost-table:start -->\n'.length, end), costTableMarkdown());
  });
});

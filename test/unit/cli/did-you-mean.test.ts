/** "Did you mean": the closest known name for a misspelt node id, via the real binary. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { closest, editDistance } from '../../../src/diag/suggest.ts';

const root = resolve(import.meta.dirname, '../../..');

describe('did you mean', () => {
  it('suggests the closest candidate within a typo distance, nothing for another word', () => {
    assert.equal(editDistance('nmae', 'name'), 1);
    assert.equal(closest('nmae', ['namespace', 'name', 'labels']), 'name');
    assert.equal(closest('confg', ['config', 'deployment']), 'config');
    assert.equal(closest('selectr', ['selector', 'template']), 'selector');
    assert.equal(closest('integr', ['integer', 'string', 'boolean']), 'integer');
    assert.equal(closest('zebra', ['config', 'deployment']), undefined);
  });

  it('kgraph validate suggests the node id an expression misspelt', () => {
    const r = spawnSync(
      process.execPath,
      [join(root, 'bin/kgraph.js'), 'validate', 'typo-node-id.yaml', '--no-color'],
      { cwd: join(import.meta.dirname, 'fixtures'), encoding: 'utf8' },
    );
    assert.equal(r.status, 1);
    assert.match(
      r.stdout,
      /^typo-node-id\.yaml:18:26 - error KG2082: references unknown identifiers: \[confg\] \(did you mean "config"\?\)$/m,
    );
  });
});

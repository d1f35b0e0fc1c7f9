/**
 * The fleet diff's pure modules (design/rgd.md §19.9) never reach the Kubernetes client: following their
 * value imports (type-only imports vanish at run time) from each module never enters src/kube/. The
 * cluster reads stay in cluster.ts, serverSide.ts and run.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '../../..');
const PURE = ['fieldDiff', 'instanceDiff', 'overlay', 'schemaVerdict', 'validateSpec', 'fleetDiff', 'report'];
const VALUE_IMPORT = /^import\s+(type\s+)?(?:[^;']*?from\s+)?'(\.[^']+)'/gms;

/** The chains of value imports from `file` that end in src/kube/. */
function kubeChains(file: string, chain: string[], seen: Set<string>, out: string[]): void {
  if (seen.has(file)) return;
  seen.add(file);
  for (const m of readFileSync(file, 'utf8').matchAll(VALUE_IMPORT)) {
    if (m[1]) continue;
    const target = resolve(dirname(file), m[2]!);
    const here = [...chain, relative(root, file)];
    if (target.startsWith(join(root, 'src/kube/'))) out.push([...here, relative(root, target)].join(' → '));
    else kubeChains(target, here, seen, out);
  }
}

describe('fleet diff layers', () => {
  it('the pure modules import nothing of src/kube', () => {
    const out: string[] = [];
    for (const m of PURE) kubeChains(join(root, 'src/fleet', `${m}.ts`), [], new Set(), out);
    assert.deepEqual(out, []);
  });
});

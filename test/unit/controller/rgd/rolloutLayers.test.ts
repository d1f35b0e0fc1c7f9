/**
 * The rollout's planning and the pinning rules (design/rgd.md §19.7–§19.8) never reach the Kubernetes
 * client: following their value imports (type-only imports vanish at run time) never enters src/kube/.
 * Reads and writes stay in rollout/controller.ts, rollout/actions.ts and revisionResolver.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '../../../..');
const PURE = [
  'src/controller/rgd/rollout/plan.ts',
  'src/controller/rgd/rollout/spec.ts',
  'src/controller/rgd/rollout/health.ts',
  'src/controller/rgd/rollout/status.ts',
  'src/controller/rgd/revisionPolicy.ts',
];
const IMPORT = /^import\s+(type\s+)?(?:[^;']*?from\s+)?'(\.[^']+)'/gms;

function kubeChains(file: string, chain: string[], seen: Set<string>, out: string[]): void {
  if (seen.has(file)) return;
  seen.add(file);
  for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    if (m[1]) continue;
    const target = resolve(dirname(file), m[2]!);
    const here = [...chain, relative(root, file)];
    if (target.startsWith(join(root, 'src/kube/'))) out.push([...here, relative(root, target)].join(' → '));
    else kubeChains(target, here, seen, out);
  }
}

describe('rollout layers', () => {
  it('the planning and the pinning rules import nothing of src/kube', () => {
    const out: string[] = [];
    for (const f of PURE) kubeChains(join(root, f), [], new Set(), out);
    assert.deepEqual(out, []);
  });
});

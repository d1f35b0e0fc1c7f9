/**
 * The environment an expression is parsed in to list its references. Node ids and iterators named like
 * a CEL global (`net`, `strings`, `int`, …) are variables that shadow the global, as in cel-go
 * (design/graph.md §16); the base environment would read them as the global and miss the reference.
 */
import { baseEnvironment, type CelEnvironment } from '../../cel/index.ts';
import type { Draft, FrameDraft } from './state.ts';

const envs = new Map<string, CelEnvironment>();

/** The in-scope names that shadow a global of the base environment, sorted. */
function shadowingNames(frame: FrameDraft, d: Draft | undefined): string[] {
  const base = baseEnvironment();
  const names = new Set<string>();
  for (let f: FrameDraft | undefined = frame; f; f = f.parent) {
    for (const id of f.byId.keys()) if (base.definesGlobal(id)) names.add(id);
  }
  for (const it of d?.iterators ?? []) if (base.definesGlobal(it.name)) names.add(it.name);
  return [...names].sort();
}

/** The base environment, or a child declaring the shadowing names in scope as `dyn`. */
export function referenceEnv(frame: FrameDraft, d: Draft | undefined): CelEnvironment {
  const names = shadowingNames(frame, d);
  if (names.length === 0) return baseEnvironment();
  const key = names.join(',');
  let env = envs.get(key);
  if (!env) {
    env = baseEnvironment().extend({ variables: Object.fromEntries(names.map((n) => [n, 'dyn'])) });
    envs.set(key, env);
  }
  return env;
}

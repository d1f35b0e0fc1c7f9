import type { Environment } from '@marcbachmann/cel-js';
import { celError } from './errors.ts';
import type { CelLibrary } from './library.ts';
import { ensureNamespace } from './namespaces.ts';

/**
 * kro's index-mutation functions, following kro pkg/cel/library/lists.go: pure functions returning
 * new lists, with kro's bounds and error messages (`[0, size)` for set/remove, `[0, size]` for insert).
 */

export function setAtIndex(list: readonly unknown[], index: bigint, value: unknown): unknown[] {
  const size = BigInt(list.length);
  if (index < 0n || index >= size)
    throw celError(`lists.setAtIndex: index ${index} out of bounds [0, ${size})`);
  const out = [...list];
  out[Number(index)] = value;
  return out;
}

export function insertAtIndex(list: readonly unknown[], index: bigint, value: unknown): unknown[] {
  const size = BigInt(list.length);
  if (index < 0n || index > size)
    throw celError(`lists.insertAtIndex: index ${index} out of bounds [0, ${size}]`);
  const out = [...list];
  out.splice(Number(index), 0, value);
  return out;
}

export function removeAtIndex(list: readonly unknown[], index: bigint): unknown[] {
  const size = BigInt(list.length);
  if (index < 0n || index >= size)
    throw celError(`lists.removeAtIndex: index ${index} out of bounds [0, ${size})`);
  const out = [...list];
  out.splice(Number(index), 1);
  return out;
}

export const kroListsLibrary: CelLibrary = {
  name: 'kro lists',
  install(env: Environment): void {
    const ns = ensureNamespace(env, 'lists');
    const set = (_ns: unknown, l: unknown[], i: bigint, v: unknown) => setAtIndex(l, i, v);
    const insert = (_ns: unknown, l: unknown[], i: bigint, v: unknown) => insertAtIndex(l, i, v);
    env.registerFunction(`${ns}.setAtIndex(list<A>, int, A): list<A>`, set);
    env.registerFunction(`${ns}.insertAtIndex(list<A>, int, A): list<A>`, insert);
    // The engine dispatches on runtime element types; cel-go has no runtime type guard, so a dyn
    // list accepts a value of another type. These overloads keep that working.
    env.registerFunction(`${ns}.setAtIndex(list<dyn>, int, dyn): list<dyn>`, set);
    env.registerFunction(`${ns}.insertAtIndex(list<dyn>, int, dyn): list<dyn>`, insert);
    env.registerFunction(
      `${ns}.removeAtIndex(list<A>, int): list<A>`,
      (_ns: unknown, l: unknown[], i: bigint) => removeAtIndex(l, i),
    );
  },
};

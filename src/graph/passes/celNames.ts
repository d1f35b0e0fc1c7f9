/** Names of the base CEL environment, which node ids and variables may not shadow. */
import { listReferences, parse as parseCel } from '../../cel/index.ts';

const celGlobals = new Map<string, boolean>();

/** True when `name` is an identifier of the base CEL environment (`list`, `int`, `optional`, …). */
export function isCelGlobal(name: string): boolean {
  let hit = celGlobals.get(name);
  if (hit === undefined) {
    const parsed = parseCel(name);
    hit = parsed.ok && listReferences(parsed.value).length === 0;
    celGlobals.set(name, hit);
  }
  return hit;
}

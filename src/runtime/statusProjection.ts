/**
 * RGD status projection (design/rgd.md §20.2): the instance's `status` fields rendered from the root scope,
 * each on its own, so a field whose inputs are missing is left out instead of holding up the rest.
 */

import { KgraphError } from '../diag/diagnostic.ts';
import type { Pass } from './pass.ts';
import { ExprStop, evalStandalone, formatPath, OMITTED, renderTree, type Steps } from './payload.ts';
import type { RuntimeIssue } from './types.ts';
import { celToPlain, isOptionalValue, type PlainValue } from './values.ts';

/** RGD status projection (design/rgd.md §20.2): each field rendered on its own; pending fields are left out. */
export function* projectStatus(
  pass: Pass,
  scope: Record<string, unknown>,
): Steps<{ status: Record<string, PlainValue>; errors: RuntimeIssue[] }> {
  const status: Record<string, PlainValue> = {};
  const errors: RuntimeIssue[] = [];
  for (const field of pass.compiled.rgd?.status ?? []) {
    if (field.path[0] === 'conditions') continue; // custom conditions: ./conditions.ts
    let value: unknown;
    try {
      value =
        field.slot.mode === 'standalone'
          ? yield* evalStandalone(pass.host, field.slot, scope)
          : yield* renderTree(pass.host, { t: 'expr', slot: field.slot }, scope);
    } catch (err) {
      if (err instanceof ExprStop) {
        if (err.kind === 'error') {
          errors.push({
            code: err.code,
            message: err.message,
            node: 'instance',
            expression: err.expression,
            field: `status.${formatPath(field.path)}`,
          });
        }
        continue;
      }
      throw err;
    }
    if (value === OMITTED || pass.host.isOmit(value)) continue;
    // An empty optional leaves the field out, as kro's status does (a null would fail the CRD's type).
    if (isOptionalValue(value)) {
      if (!value.hasValue()) continue;
      value = value.value();
    }
    try {
      setPath(status, field.path, celToPlain(value));
    } catch (err) {
      if (!(err instanceof KgraphError)) throw err;
      errors.push({
        code: err.code,
        message: err.message,
        node: 'instance',
        field: `status.${formatPath(field.path)}`,
      });
    }
  }
  return { status: compact(status) as Record<string, PlainValue>, errors };
}

function setPath(
  root: Record<string, PlainValue>,
  path: readonly (string | number)[],
  value: PlainValue,
): void {
  let cur: Record<string, PlainValue> | PlainValue[] = root;
  for (let i = 0; i < path.length; i++) {
    const step = path[i]!;
    const last = i === path.length - 1;
    if (last) {
      (cur as Record<string | number, PlainValue>)[step] = value;
      return;
    }
    const next = path[i + 1]!;
    const existing: PlainValue | undefined = (cur as Record<string | number, PlainValue>)[step];
    if (existing === undefined || existing === null || typeof existing !== 'object') {
      const created: Record<string, PlainValue> | PlainValue[] = typeof next === 'number' ? [] : {};
      (cur as Record<string | number, PlainValue>)[step] = created;
      cur = created;
    } else {
      cur = existing as Record<string, PlainValue> | PlainValue[];
    }
  }
}

/** Removes the holes left in arrays by left-out elements. */
function compact(v: PlainValue): PlainValue {
  if (Array.isArray(v)) return v.filter((x) => x !== undefined).map(compact);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, PlainValue> = {};
    for (const [k, x] of Object.entries(v)) out[k] = compact(x);
    return out;
  }
  return v;
}

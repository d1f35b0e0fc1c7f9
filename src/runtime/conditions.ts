/**
 * Custom instance conditions of an RGD (design/rgd.md §20.3): the `spec.schema.status.conditions`
 * entries, each a `${runtime.newCondition(…)}` (or a list of them), evaluated after the walk. Their
 * `schema` variable carries the built-in conditions the controller computed for this pass in
 * `status.conditions`, so that `runtime.condition(schema, 'ResourcesReady')` reads them; nothing
 * else of the instance status is visible, as for the other status fields.
 *
 * The controller writes `conditions` instead of the four built-ins when the RGD declares any (kro
 * filters the built-ins off the wire); when `incomplete`, it keeps the previously written condition
 * of every type that produced nothing this pass; when `errors` is non-empty it sets `state: ERROR`
 * and still writes the conditions that evaluated (degraded evaluation).
 */
import type { StatusField } from '../graph/model.ts';
import { RuntimeCode } from './codes.ts';
import type { EngineHost } from './host.ts';
import { ExprStop, formatPath, renderTree, type Steps } from './payload.ts';
import type { AuthoredCondition, CustomConditionsResult } from './types.ts';

export type { AuthoredCondition, CustomConditionsResult } from './types.ts';

import { celToPlain } from './values.ts';

/** A built-in condition handed in by the controller (`Ready`, `InstanceManaged`, …). */
export interface BuiltinCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

const STATUSES = new Set(['True', 'False', 'Unknown']);

/** True when the RGD declares custom conditions. */
export function hasCustomConditions(status: readonly StatusField[] | undefined): boolean {
  return (status ?? []).some((f) => f.path[0] === 'conditions');
}

export function* evaluateCustomConditions(
  host: EngineHost,
  fields: readonly StatusField[],
  scope: Record<string, unknown>,
  schemaWithBuiltins: unknown,
): Steps<CustomConditionsResult> {
  const out: CustomConditionsResult = { conditions: [], incomplete: false, errors: [] };
  const vars = { ...scope, schema: schemaWithBuiltins };
  for (const field of fields) {
    if (field.path[0] !== 'conditions') continue;
    const where = `status.${formatPath(field.path)}`;
    let value: unknown;
    try {
      value = yield* renderTree(host, { t: 'expr', slot: field.slot }, vars);
    } catch (err) {
      if (!(err instanceof ExprStop)) throw err;
      if (err.kind === 'pending') out.incomplete = true;
      else {
        out.errors.push({
          code: err.code,
          message: err.message,
          node: 'instance',
          expression: err.expression,
          field: where,
        });
      }
      continue;
    }
    const plain = celToPlain(value);
    const items = Array.isArray(plain) ? plain : [plain];
    const accepted: AuthoredCondition[] = [];
    let bad: string | undefined;
    for (const item of items) {
      const c = asCondition(item);
      if (c === undefined) {
        bad = `condition expressions must return runtime.newCondition(...) or a list of them, got ${JSON.stringify(item)}`;
        break;
      }
      accepted.push(c);
    }
    if (bad !== undefined) {
      out.errors.push({ code: RuntimeCode.ConditionOutput, message: bad, node: 'instance', field: where });
      continue;
    }
    out.conditions.push(...accepted);
  }
  return out;
}

function asCondition(v: unknown): AuthoredCondition | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const { type, status, reason, message } = o;
  if (typeof type !== 'string' || type === '' || typeof status !== 'string' || !STATUSES.has(status)) {
    return undefined;
  }
  return {
    type,
    status: status as AuthoredCondition['status'],
    reason: typeof reason === 'string' ? reason : '',
    message: typeof message === 'string' ? message : '',
  };
}

/**
 * Status field types without a full compile: the structure of `spec.schema.status` is literal, a
 * string template (`"${a}-${b}"`) is always a string, and a standalone `${expr}` is unknown (`dyn`)
 * until the compiler infers its CEL type. Used by `kgraph crd` before the compiler exists in a run,
 * and to report the static status rules (every leaf an expression, reserved fields).
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: messages quote kgraph ${…} syntax

import { isRecord } from '../../diag/record.ts';
import { scanValue } from '../../expr/index.ts';
import { SchemaCode } from '../codes.ts';
import { childPath, type DiagnosticSink } from '../report.ts';
import type { StatusFieldType } from './statusSchema.ts';

export interface LiteralStatusOptions {
  /** Field path of the status map. Default `spec.schema.status`. */
  path?: string;
}

/**
 * Walks the status map; returns one entry per leaf. Reports leaves without expressions (KG4020),
 * `state` (reserved, KG4021) and a `conditions` that is not a list of expressions.
 */
export function literalStatusFieldTypes(
  status: unknown,
  sink: DiagnosticSink,
  options: LiteralStatusOptions = {},
): StatusFieldType[] {
  const base = options.path ?? 'spec.schema.status';
  const out: StatusFieldType[] = [];
  if (status === undefined || status === null) return out;
  if (!isRecord(status)) {
    sink.error(SchemaCode.InvalidStatusField, base, 'spec.schema.status must be a map of status fields');
    return out;
  }

  const walk = (value: unknown, path: (string | number)[], textPath: string): void => {
    if (isRecord(value)) {
      for (const [k, v] of Object.entries(value)) walk(v, [...path, k], childPath(textPath, k));
      return;
    }
    if (Array.isArray(value)) {
      value.forEach((v, i) => {
        walk(v, [...path, i], `${textPath}[${i}]`);
      });
      return;
    }
    if (typeof value !== 'string' || !value.includes('${')) {
      sink.error(
        SchemaCode.StatusFieldWithoutExpression,
        textPath,
        'status fields without expressions are not supported',
        'every status leaf must be a ${…} expression',
      );
      return;
    }
    const scanned = scanValue(value);
    if (!scanned.ok) {
      // The expression layer reports malformed expressions; the type stays unknown here.
      out.push({ path, schema: undefined });
      return;
    }
    out.push({ path, schema: scanned.value.kind === 'template' ? { type: 'string' } : undefined });
  };

  for (const [key, value] of Object.entries(status)) {
    const textPath = childPath(base, key);
    if (key === 'state') {
      sink.error(
        SchemaCode.ReservedStatusField,
        textPath,
        "status field 'state' is reserved for the controller",
      );
      continue;
    }
    if (key === 'conditions') {
      if (!Array.isArray(value)) {
        sink.error(
          SchemaCode.ReservedStatusField,
          textPath,
          "status field 'conditions' is reserved: only a list of runtime.newCondition(...) expressions is allowed",
        );
        continue;
      }
      // Custom conditions keep the standard conditions schema; only check the leaves are expressions.
      const saved = out.length;
      walk(value, ['conditions'], textPath);
      out.splice(saved);
      continue;
    }
    walk(value, [key], textPath);
  }
  return out;
}

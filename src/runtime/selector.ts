/**
 * Kubernetes LabelSelector validation and matching (design/graph.md §11). A selector computed from
 * data must be a valid LabelSelector; any other shape fails the ref rather than matching everything.
 */

import { isRecord } from '../diag/record.ts';

export type SelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

export interface LabelSelectorRequirement {
  key: string;
  operator: SelectorOperator;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export type SelectorCheck = { ok: true; selector: LabelSelector } | { ok: false; message: string };

const OPERATORS = new Set<string>(['In', 'NotIn', 'Exists', 'DoesNotExist']);

/** Validates a JSON value as a LabelSelector. Unknown keys (e.g. `matchLabel`) are rejected. */
export function toLabelSelector(value: unknown): SelectorCheck {
  if (!isRecord(value)) return { ok: false, message: 'selector must be an object' };
  for (const k of Object.keys(value)) {
    if (k !== 'matchLabels' && k !== 'matchExpressions') {
      return {
        ok: false,
        message: `selector has unknown field "${k}" (expected matchLabels, matchExpressions)`,
      };
    }
  }
  const out: LabelSelector = {};
  const ml = value.matchLabels;
  if (ml !== undefined && ml !== null) {
    if (!isRecord(ml)) return { ok: false, message: 'selector.matchLabels must be a map of strings' };
    const labels: Record<string, string> = {};
    for (const [k, v] of Object.entries(ml)) {
      if (typeof v !== 'string')
        return { ok: false, message: `selector.matchLabels["${k}"] must be a string` };
      labels[k] = v;
    }
    out.matchLabels = labels;
  }
  const me = value.matchExpressions;
  if (me !== undefined && me !== null) {
    if (!Array.isArray(me)) return { ok: false, message: 'selector.matchExpressions must be a list' };
    const reqs: LabelSelectorRequirement[] = [];
    for (const [i, r] of me.entries()) {
      if (!isRecord(r)) return { ok: false, message: `selector.matchExpressions[${i}] must be an object` };
      const { key, operator, values } = r;
      if (typeof key !== 'string' || key === '') {
        return { ok: false, message: `selector.matchExpressions[${i}].key must be a non-empty string` };
      }
      if (typeof operator !== 'string' || !OPERATORS.has(operator)) {
        return {
          ok: false,
          message: `selector.matchExpressions[${i}].operator must be one of In, NotIn, Exists, DoesNotExist`,
        };
      }
      const op = operator as SelectorOperator;
      const vals = values ?? [];
      if (!Array.isArray(vals) || vals.some((v) => typeof v !== 'string')) {
        return { ok: false, message: `selector.matchExpressions[${i}].values must be a list of strings` };
      }
      if ((op === 'In' || op === 'NotIn') && vals.length === 0) {
        return {
          ok: false,
          message: `selector.matchExpressions[${i}]: operator ${op} needs at least one value`,
        };
      }
      if ((op === 'Exists' || op === 'DoesNotExist') && vals.length > 0) {
        return { ok: false, message: `selector.matchExpressions[${i}]: operator ${op} takes no values` };
      }
      reqs.push({ key, operator: op, values: vals as string[] });
    }
    out.matchExpressions = reqs;
  }
  return { ok: true, selector: out };
}

/** True when the labels satisfy every requirement. An empty selector matches everything. */
export function matchesSelector(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[k] !== v) return false;
  }
  for (const r of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, r.key);
    const value = labels[r.key];
    switch (r.operator) {
      case 'In':
        if (!has || !(r.values ?? []).includes(value as string)) return false;
        break;
      case 'NotIn':
        if (has && (r.values ?? []).includes(value as string)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
    }
  }
  return true;
}

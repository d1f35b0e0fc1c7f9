/**
 * The rendered object against the live one, leaf by leaf over what was rendered: with server-side
 * apply a Graph owns only the fields it renders, so fields the server or others added (uid, status,
 * defaults, other managers' labels) are not differences. Lists are compared position by position.
 */

import { isRecord } from '../diag/record.ts';
import { formatPath } from '../expr/index.ts';
import { jsonSafe } from './jsonSafe.ts';
import type { DiffRow } from './model.ts';

/** Rows beyond this are cut (a page is for reading; the YAML of both objects is shown too). */
export const MAX_DIFF_ROWS = 400;

const text = (v: unknown): string => JSON.stringify(jsonSafe(v));

export function diffObject(rendered: unknown, live: unknown): DiffRow[] {
  const rows: DiffRow[] = [];
  const walk = (r: unknown, l: unknown, path: (string | number)[], present: boolean): void => {
    if (rows.length >= MAX_DIFF_ROWS) return;
    if (isRecord(r) && Object.keys(r).length > 0) {
      for (const [k, v] of Object.entries(r)) {
        const has = present && isRecord(l) && k in l;
        walk(v, has ? (l as Record<string, unknown>)[k] : undefined, [...path, k], has);
      }
      return;
    }
    if (Array.isArray(r) && r.length > 0) {
      r.forEach((v, i) => {
        const has = present && Array.isArray(l) && i < l.length;
        walk(v, has ? (l as unknown[])[i] : undefined, [...path, i], has);
      });
      return;
    }
    const same = present && text(r) === text(l);
    rows.push({
      path: formatPath(path),
      rendered: text(r),
      live: present ? text(l) : null,
      change: !present ? 'missing' : same ? 'same' : 'changed',
    });
  };
  walk(rendered, live, [], live !== undefined);
  return rows;
}

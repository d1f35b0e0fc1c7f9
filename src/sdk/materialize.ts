/**
 * Turns an authored manifest tree into plain JSON: forces lazies, renders context strings (collecting
 * their context), decodes markers, and applies the null-stripping rules of design/sdk.md §A11 bottom-up:
 *  1. a null/undefined attribute is removed; 2. a null list element is removed;
 *  3. an object or list that had elements and lost all of them collapses (is removed from its parent)
 *     unless marked with `keep`; 4. a literal `{}` / `[]` is preserved.
 */
import {
  type Ctx,
  type CtxNode,
  decodeString,
  emptyCtx,
  hasMarkers,
  isKStr,
  KStr,
  Lazy,
  type RenderMode,
  unionCtx,
} from './context.ts';
import { SdkCode, type SdkCodeValue } from './errors.ts';
import { isKept, type Json } from './values.ts';

export interface FieldProblem {
  readonly path: string;
  readonly code: SdkCodeValue;
  readonly message: string;
}

export interface Materialized {
  /** `undefined` when the whole value collapsed. */
  readonly value: Json | undefined;
  readonly ctx: Ctx;
  readonly problems: FieldProblem[];
  /** Resources whose fields appear as field segments (rendered as `${id.path}` in graph mode). */
  readonly fieldNodes: ReadonlySet<CtxNode>;
}

function joinPath(base: string, key: string): string {
  if (/^[A-Za-z_$][\w$-]*$/.test(key)) return base === '' ? key : `${base}.${key}`;
  return `${base}[${JSON.stringify(key)}]`;
}

export function isResourceLike(v: unknown): boolean {
  return (
    typeof v === 'object' && v !== null && (v as { __kgraphResource?: unknown }).__kgraphResource === true
  );
}

export function materialize(v: unknown, mode: RenderMode, basePath = ''): Materialized {
  const ctxs: Ctx[] = [];
  const problems: FieldProblem[] = [];
  const fieldNodes = new Set<CtxNode>();
  const noteFields = (k: KStr): void => {
    for (const s of k.segments) if (typeof s !== 'string' && s.kind === 'field') fieldNodes.add(s.node);
  };
  const walk = (x: unknown, path: string): Json | undefined => {
    if (x === null || x === undefined) return undefined;
    if (x instanceof Lazy) {
      return walk(x.force(), path);
    }
    if (isKStr(x)) {
      ctxs.push(x.ctx);
      noteFields(x);
      return x.render(mode);
    }
    if (typeof x === 'string') {
      const d = decodeString(x);
      for (const p of d.problems) problems.push({ path, code: p.code, message: p.message });
      ctxs.push(d.ctx);
      const ks = new KStr(d.segments, emptyCtx);
      noteFields(ks);
      return ks.render(mode);
    }
    if (typeof x === 'number') {
      if (!Number.isFinite(x))
        problems.push({ path, code: SdkCode.invalidArgument, message: `${x} is not JSON` });
      return x;
    }
    if (typeof x === 'boolean') return x;
    if (isResourceLike(x)) {
      problems.push({
        path,
        code: SdkCode.resourceInManifest,
        message:
          'a resource object was used as a manifest value; use one of its .out fields (e.g. .out.name)',
      });
      return undefined;
    }
    if (Array.isArray(x)) {
      if (x.length === 0) return [];
      const out: Json[] = [];
      x.forEach((el, i) => {
        const r = walk(el, `${path}[${i}]`);
        if (r !== undefined) out.push(r);
      });
      if (out.length === 0) return isKept(x) ? [] : undefined;
      return out;
    }
    if (typeof x === 'object') {
      const proto = Object.getPrototypeOf(x) as unknown;
      if (proto !== Object.prototype && proto !== null) {
        problems.push({
          path,
          code: SdkCode.invalidArgument,
          message: `unsupported value of type ${(x as object).constructor?.name ?? 'object'} in a manifest`,
        });
        return undefined;
      }
      const keys = Object.keys(x).sort();
      if (keys.length === 0) return {};
      const out: { [k: string]: Json } = {};
      for (const key of keys) {
        const r = walk((x as Record<string, unknown>)[key], joinPath(path, key));
        if (r === undefined) continue;
        // A key built from a context string (`{ [`${x.out.name}`]: … }`) carries markers too.
        let outKey = key;
        if (hasMarkers(key)) {
          const d = decodeString(key);
          for (const p of d.problems)
            problems.push({ path: joinPath(path, key), code: p.code, message: `key: ${p.message}` });
          ctxs.push(d.ctx);
          outKey = new KStr(d.segments, emptyCtx).render(mode === 'graph' ? 'final' : mode);
        }
        out[outKey] = r;
      }
      if (Object.keys(out).length === 0) return isKept(x) ? {} : undefined;
      return out;
    }
    problems.push({ path, code: SdkCode.invalidArgument, message: `unsupported ${typeof x} in a manifest` });
    return undefined;
  };
  const value = walk(v, basePath);
  return { value, ctx: unionCtx(...ctxs), problems, fieldNodes };
}

/**
 * Dependency context: the TypeScript stand-in for Nix string context.
 *
 * A `KStr` holds text segments plus the set of resources the text was derived from.
 * Two ways keep the context through string building:
 *  - the tagged template `` k`…${x}…` `` (type-safe, no markers);
 *  - plain template literals / `+`: coercion (`Symbol.toPrimitive`, `toJSON`) returns the text wrapped in
 *    invisible private-use marker characters that name a registry entry. Builders and synth decode them;
 *    the inner text is compared with the registered text, so any lossy edit (`toUpperCase`, `slice`) is
 *    detected, and a leftover marker character is a build error naming the object and the field.
 * In strict mode coercion throws instead of producing markers.
 */

import { brandClass } from './brand.ts';
import { SdkCode, SdkError } from './errors.ts';
import { sdkRegistry } from './registry.ts';

/** What a context refers to: one resource of the build (implemented by the resource node). */
export interface CtxNode {
  readonly key: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string | undefined;
  readonly name: string;
  /** The identity hash, known once synth has hashed the node. */
  readonly hash: string | undefined;
  /** A Secret ref reflected from another namespace (accepted by checkNamespacedRefs). */
  readonly reflected: boolean;
  /** Graph node id used by `--as graph`. */
  readonly graphId: string;
}

export interface Ctx {
  /** Ordering context: the resources this value was derived from (deploy-order edges). */
  readonly order: ReadonlySet<CtxNode>;
  /** Connect context (endpoint facts): fqdn/port/url of the resource were used. */
  readonly connect: ReadonlySet<CtxNode>;
  /** Kinds vouched for by `kix.untrackedRef` (satisfy checkNamespacedRefs without an edge). */
  readonly untracked: ReadonlySet<string>;
}

export const emptyCtx: Ctx = Object.freeze({
  order: new Set<CtxNode>(),
  connect: new Set<CtxNode>(),
  untracked: new Set<string>(),
});

export function unionCtx(...cs: readonly Ctx[]): Ctx {
  const nonEmpty = cs.filter((c) => c.order.size + c.connect.size + c.untracked.size > 0);
  if (nonEmpty.length === 0) return emptyCtx;
  if (nonEmpty.length === 1) return nonEmpty[0]!;
  const order = new Set<CtxNode>();
  const connect = new Set<CtxNode>();
  const untracked = new Set<string>();
  for (const c of nonEmpty) {
    for (const n of c.order) order.add(n);
    for (const n of c.connect) connect.add(n);
    for (const u of c.untracked) untracked.add(u);
  }
  return { order, connect, untracked };
}

export function nodeCtx(node: CtxNode, connect = false): Ctx {
  return { order: new Set([node]), connect: connect ? new Set([node]) : new Set(), untracked: new Set() };
}

/** A piece of a context string. */
export type Segment =
  | string
  /** Text that is a field of a resource; `--as graph` renders it as `${graphId.path}`. */
  | { readonly kind: 'field'; readonly text: string; readonly node: CtxNode; readonly path: string }
  /** The identity hash of a resource: only known at synth, after the resource is hashed. */
  | { readonly kind: 'hash'; readonly node: CtxNode };

export type RenderMode = 'text' | 'final' | 'graph';

function renderSegment(s: Segment, mode: RenderMode): string {
  if (typeof s === 'string') return s;
  if (s.kind === 'field') return mode === 'graph' ? '${' + s.node.graphId + '.' + s.path + '}' : s.text;
  if (s.node.hash !== undefined) return s.node.hash;
  if (mode === 'text') return `<identityHash:${s.node.key}>`;
  throw new SdkError(
    SdkCode.deferredValue,
    `the identityHash of ${s.node.key} is only known at synth, after that resource is hashed`,
  );
}

/** Runs `f` with strict coercion: a `KStr` used where a plain string is needed throws. */
export function withStrictContext<T>(on: boolean, f: () => T): T {
  const before = sdkRegistry.strict;
  sdkRegistry.strict = on;
  try {
    return f();
  } finally {
    sdkRegistry.strict = before;
  }
}
export function isStrictContext(): boolean {
  return sdkRegistry.strict;
}

/** A string with dependency context. */
export class KStr {
  readonly segments: readonly Segment[];
  readonly ctx: Ctx;
  constructor(segments: readonly Segment[], ctx: Ctx) {
    this.segments = mergeSegments(segments);
    this.ctx = ctx;
  }
  /** The final text. Throws for an identityHash read before synth hashed its resource. */
  get value(): string {
    return this.render('final');
  }
  /** The text with placeholders for identity hashes not yet known. */
  get text(): string {
    return this.render('text');
  }
  render(mode: RenderMode): string {
    return this.segments.map((s) => renderSegment(s, mode)).join('');
  }
  [Symbol.toPrimitive](): string {
    return coerce(this);
  }
  toString(): string {
    return coerce(this);
  }
  toJSON(): string {
    return coerce(this);
  }
}

function mergeSegments(segs: readonly Segment[]): Segment[] {
  const out: Segment[] = [];
  for (const s of segs) {
    if (typeof s === 'string') {
      if (s === '') continue;
      const last = out[out.length - 1];
      if (typeof last === 'string') out[out.length - 1] = last + s;
      else out.push(s);
    } else out.push(s);
  }
  return out;
}

// ---- markers -------------------------------------------------------------------------------

const M_START = '\uEA00';
const M_SEP = '\uEA01';
const M_END = '\uEA02';
const DIGIT0 = 0xea10;
/** Every character of the marker block; any of these left after decoding is corruption. */
export const MARKER_CHARS = /[\uEA00-\uEA1F]/;
const MARKER_RE = /\uEA00([\uEA10-\uEA19]+)\uEA01([^\uEA00-\uEA1F]*)\uEA02/g;

// The marker table is process-wide (registry.ts): a marker minted by one copy of the SDK decodes in another.
const registry = sdkRegistry.markers;

function coerce(s: KStr): string {
  if (sdkRegistry.strict) {
    throw new SdkError(
      SdkCode.strictCoercion,
      `a context string (${s.text}) was coerced to a plain string in strict mode; use the k\`…\` tag or pass the value itself`,
    );
  }
  const id = sdkRegistry.nextMarker++;
  const text = s.text;
  registry.set(id, { kstr: s, text });
  const digits = [...String(id)].map((d) => String.fromCharCode(DIGIT0 + Number(d))).join('');
  return M_START + digits + M_SEP + text + M_END;
}

export interface MarkerProblem {
  readonly code: typeof SdkCode.markerCorrupted | typeof SdkCode.markerUnknown;
  readonly message: string;
}

export interface Decoded {
  readonly segments: Segment[];
  readonly ctx: Ctx;
  readonly problems: MarkerProblem[];
}

export function hasMarkers(s: string): boolean {
  return MARKER_CHARS.test(s);
}

/** Decodes the markers of a plain string into segments and context. */
export function decodeString(s: string): Decoded {
  if (!MARKER_CHARS.test(s)) return { segments: s === '' ? [] : [s], ctx: emptyCtx, problems: [] };
  const segments: Segment[] = [];
  const ctxs: Ctx[] = [];
  const problems: MarkerProblem[] = [];
  let last = 0;
  let rest = '';
  for (const m of s.matchAll(MARKER_RE)) {
    const before = s.slice(last, m.index);
    rest += before;
    segments.push(before);
    last = m.index + m[0].length;
    const id = Number([...m[1]!].map((c) => String(c.charCodeAt(0) - DIGIT0)).join(''));
    const reg = registry.get(id);
    const inner = m[2]!;
    if (!reg) {
      problems.push({
        code: SdkCode.markerUnknown,
        message: `unknown context marker #${id} around "${inner}"`,
      });
      segments.push(inner);
      continue;
    }
    if (reg.text !== inner) {
      problems.push({
        code: SdkCode.markerCorrupted,
        message: `context string "${reg.text}" was modified after interpolation (now "${inner}"); string operations on a context string lose its dependency; use k\`…\` or unsafeDiscardContext`,
      });
      segments.push(inner);
      continue;
    }
    // Registered by coerce(), of this copy of the SDK or another (the same class, registry.ts).
    const kstr = reg.kstr as KStr;
    segments.push(...kstr.segments);
    ctxs.push(kstr.ctx);
  }
  const tail = s.slice(last);
  rest += tail;
  segments.push(tail);
  if (MARKER_CHARS.test(rest)) {
    problems.push({
      code: SdkCode.markerCorrupted,
      message:
        'a leftover context marker was found (a context string was cut, e.g. by slice() or substring()); use k`…` or unsafeDiscardContext',
    });
  }
  return { segments: mergeSegments(segments).map(stripStray), ctx: unionCtx(...ctxs), problems };
}

function stripStray(s: Segment): Segment {
  return typeof s === 'string' ? s.replace(/[\uEA00-\uEA1F]/g, '') : s;
}

/** A string or a context string: what builders accept wherever a string is expected. */
export type Str = string | KStr;

export function isKStr(v: unknown): v is KStr {
  return v instanceof KStr;
}

/** Turns any `Str` into a `KStr` (decoding markers; marker problems throw). */
export function toKStr(v: Str, where = 'value'): KStr {
  if (v instanceof KStr) return v;
  const d = decodeString(v);
  const p = d.problems[0];
  if (p) throw new SdkError(p.code, `${where}: ${p.message}`);
  return new KStr(d.segments, d.ctx);
}

/** Text (placeholders for hashes not yet known) and context of a `Str`, tolerant of marker problems. */
export function inspectStr(v: Str): { text: string; ctx: Ctx } {
  if (v instanceof KStr) return { text: v.text, ctx: v.ctx };
  const d = decodeString(v);
  return { text: new KStr(d.segments, emptyCtx).text, ctx: d.ctx };
}

export type Interpolable = Str | number | boolean | bigint;

/** The context-keeping template tag: `` k`http://${svc.out.fqdn}:${svc.out.port}` ``. */
export function k(parts: TemplateStringsArray, ...xs: readonly Interpolable[]): KStr {
  const segs: Segment[] = [];
  const ctxs: Ctx[] = [];
  const add = (v: Interpolable): void => {
    if (typeof v === 'string' || v instanceof KStr) {
      const ks = toKStr(v, 'k`…`');
      segs.push(...ks.segments);
      ctxs.push(ks.ctx);
    } else segs.push(String(v));
  };
  parts.forEach((p, i) => {
    add(p);
    if (i < xs.length) add(xs[i]!);
  });
  return new KStr(segs, unionCtx(...ctxs));
}

/** The same text without any context (no edge). Explicit and greppable by design. */
export function unsafeDiscardContext(s: Str): string {
  return toKStr(s, 'unsafeDiscardContext').value;
}

/** Adds context to a string (used by augmentEdge and outputs). */
export function withCtx(s: Str, ctx: Ctx): KStr {
  const ks = toKStr(s);
  return new KStr(ks.segments, unionCtx(ks.ctx, ctx));
}

// ---- lazy ----------------------------------------------------------------------------------

/** A forward reference, forced during synth (after every part is built). */
export class Lazy<T> {
  #f: (() => T) | undefined;
  #value: T | undefined;
  #state: 'new' | 'forcing' | 'done' = 'new';
  constructor(f: () => T) {
    this.#f = f;
  }
  force(): T {
    if (this.#state === 'done') return this.#value as T;
    if (this.#state === 'forcing') throw new SdkError(SdkCode.cycle, 'cycle: a lazy value depends on itself');
    this.#state = 'forcing';
    try {
      this.#value = this.#f!();
    } finally {
      this.#state = this.#state === 'forcing' ? 'new' : this.#state;
    }
    this.#state = 'done';
    this.#f = undefined;
    return this.#value as T;
  }
}

brandClass(KStr, 'KStr');
brandClass(Lazy, 'Lazy');

export function lazy<T>(f: () => T): Lazy<T> {
  return new Lazy(f);
}

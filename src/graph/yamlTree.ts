// biome-ignore-all lint/suspicious/noTemplateCurlyInString: messages quote kgraph ${…} syntax
/**
 * YAML documents as positioned trees. The compiler walks these trees instead of plain JS values so
 * that every diagnostic can point at the offending key or value (file:line:column).
 */
import {
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseAllDocuments,
  Scalar,
  visit,
  type YAMLError,
} from 'yaml';
import type { Diagnostic, SourceLocation } from '../diag/diagnostic.ts';
import { GraphCode } from './codes.ts';
import type { JsonValue } from './model.ts';

export interface Pos {
  /** 0-based character offset into the file. */
  offset: number;
  length: number;
}

export type YNode = YMap | YSeq | YScalar;

export interface YMap {
  t: 'map';
  entries: YEntry[];
  pos: Pos;
}

export interface YEntry {
  key: string;
  keyPos: Pos;
  value: YNode;
}

export interface YSeq {
  t: 'seq';
  items: YNode[];
  pos: Pos;
}

export interface YScalar {
  t: 'scalar';
  value: null | boolean | number | string;
  pos: Pos;
  /**
   * Offset (into the file) of the first character of the string content, when a character of the
   * value maps 1:1 onto the source (plain and single-line quoted scalars without escapes); used to
   * point at an expression inside a value.
   */
  contentOffset?: number;
  /**
   * When the value does not map 1:1 (block scalars, quoted or plain scalars over several lines): the
   * file offset of each character of the value, plus one past its end, so that an expression inside a
   * `|` or `>` body is still located at its exact range (editors need the range, not the line).
   */
  contentMap?: readonly number[];
}

/** One YAML document of a file. */
export interface YDocument {
  file: string;
  /** 0-based index of the document within the file. */
  index: number;
  root: YNode | undefined;
  source: SourceFile;
}

/** A file's text with a line index, shared by the documents it holds. */
export class SourceFile {
  readonly name: string;
  readonly text: string;
  private readonly lineStarts: number[];
  /** Maps an offset of the (possibly rewritten) parsed text back to the original text. */
  private readonly remap: ((offset: number) => number) | undefined;

  constructor(name: string, text: string, remap?: (offset: number) => number) {
    this.name = name;
    this.text = text;
    this.remap = remap;
    this.lineStarts = [0];
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
  }

  /** 1-based line and column of an offset of the parsed text. */
  location(offset: number, length = 0): SourceLocation {
    const o = this.remap ? this.remap(offset) : offset;
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= o) lo = mid;
      else hi = mid - 1;
    }
    return { file: this.name, line: lo + 1, column: o - this.lineStarts[lo]! + 1, offset: o, length };
  }

  /** The text of a 1-based line, without its newline. */
  line(line: number): string {
    const start = this.lineStarts[line - 1];
    if (start === undefined) return '';
    const next = this.lineStarts[line];
    const end = next === undefined ? this.text.length : next - 1;
    return this.text.slice(start, end).replace(/\r$/, '');
  }
}

export interface ParsedFile {
  documents: YDocument[];
  diagnostics: Diagnostic[];
}

/**
 * Parses every document of a file. YAML syntax errors become KG2001 diagnostics. kgraph leniency:
 * an unquoted `${…}` inside a flow collection (`{ app: ${schema.spec.name} }`) is not valid YAML
 * (`{` and `}` are flow indicators), yet such manifests appear in the kro and krop documentation; when
 * the file does not parse, kgraph quotes those expressions, re-parses, and reports a warning (KG2002)
 * for each rewritten expression. Positions are mapped back to the original text.
 */
export function parseYamlFile(name: string, text: string): ParsedFile {
  const first = parseText(name, text, undefined);
  if (first.diagnostics.every((d) => d.code !== GraphCode.YamlSyntax)) return first;
  const rewrite = quoteFlowExpressions(text);
  if (rewrite.rewrites.length === 0) return first;
  const second = parseText(name, rewrite.text, rewrite.remap, text);
  if (second.diagnostics.some((d) => d.code === GraphCode.YamlSyntax)) return first;
  const original = new SourceFile(name, text);
  for (const at of rewrite.rewrites) {
    second.diagnostics.push({
      severity: 'warning',
      code: GraphCode.FlowExpressionQuoted,
      message:
        'unquoted `${…}` inside a YAML flow collection is not valid YAML; kgraph read it as a string — quote it ("${…}")',
      location: original.location(at, 2),
    });
  }
  return second;
}

function parseText(
  name: string,
  text: string,
  remap: ((o: number) => number) | undefined,
  original?: string,
): ParsedFile {
  const source =
    remap && original !== undefined ? new SourceFile(name, original, remap) : new SourceFile(name, text);
  const lineCounter = new LineCounter();
  // Duplicate keys are not a syntax error here: kubectl (sigs.k8s.io/yaml) and kro keep the last value,
  // so kgraph does too, with a warning naming both lines (see convert).
  const docs = parseAllDocuments(text, { lineCounter, uniqueKeys: false, prettyErrors: false });
  const documents: YDocument[] = [];
  const diagnostics: Diagnostic[] = [];
  const list = Array.isArray(docs) ? docs : [];
  if (!Array.isArray(docs)) {
    // An EmptyStream: no documents at all.
    return { documents, diagnostics };
  }
  list.forEach((doc, index) => {
    for (const err of causes(doc.errors)) {
      const opened = unclosedQuoteStart(doc, err);
      diagnostics.push({
        severity: 'error',
        code: GraphCode.YamlSyntax,
        message:
          opened === undefined
            ? `YAML: ${firstLine(err.message)}`
            : `YAML: ${firstLine(err.message)}: the string opened here is never closed`,
        location:
          opened === undefined
            ? source.location(err.pos[0], Math.max(1, err.pos[1] - err.pos[0]))
            : source.location(opened, 1),
      });
    }
    for (const warn of doc.warnings) {
      diagnostics.push({
        severity: 'warning',
        code: GraphCode.YamlSyntax,
        message: `YAML: ${firstLine(warn.message)}`,
        location: source.location(warn.pos[0], Math.max(1, warn.pos[1] - warn.pos[0])),
      });
    }
    if (doc.errors.length > 0) return;
    const notes: ConvertNotes = { duplicates: [], booleanKeys: [] };
    const root = doc.contents ? convert(doc.contents as Node, text, notes) : undefined;
    for (const b of notes.booleanKeys) {
      const value = /^(y|yes|on)$/i.test(b.key) ? 'true' : 'false';
      diagnostics.push({
        severity: 'warning',
        code: GraphCode.YamlBooleanKey,
        message: `map key ${b.key} is a boolean in YAML 1.1: kubectl sends it as "${value}", kgraph reads "${b.key}"; quote it ("${b.key}") so both read the same`,
        location: source.location(b.at.offset, Math.max(1, b.at.length)),
      });
    }
    for (const d of notes.duplicates) {
      const first = source.location(d.first.offset, d.first.length);
      diagnostics.push({
        severity: 'warning',
        code: GraphCode.DuplicateYamlKey,
        message: `duplicate map key ${JSON.stringify(d.key)} (lines ${first.line} and ${source.location(d.again.offset).line}): the last value is used, as kubectl and kro read it`,
        location: source.location(d.again.offset, Math.max(1, d.again.length)),
      });
    }
    if (root === undefined || (root.t === 'scalar' && root.value === null)) return;
    documents.push({ file: name, index, root, source });
  });
  return { documents, diagnostics };
}

/**
 * The errors of a document worth reporting. A tab used as indentation or an unclosed quote makes the
 * parser misread everything after it, and the errors it then reports (an implicit key on several lines,
 * a block sequence as a key, a key without a value) are consequences: when a document has such a cause,
 * only the causes are reported, so the user reads one error at the place to fix.
 */
function causes(errors: readonly YAMLError[]): readonly YAMLError[] {
  const root = errors.filter((e) => e.code === 'TAB_AS_INDENT' || isUnclosedQuote(e));
  return root.length > 0 ? root : errors;
}

function isUnclosedQuote(e: YAMLError): boolean {
  return e.code === 'MISSING_CHAR' && /^Missing closing ["']quote/.test(e.message);
}

/**
 * Where an unclosed quoted string starts: the parser reports it at the end of the text the string
 * swallowed (often the end of the file); the cause is the opening quote.
 */
function unclosedQuoteStart(
  doc: ReturnType<typeof parseAllDocuments>[number],
  e: YAMLError,
): number | undefined {
  if (!isUnclosedQuote(e)) return undefined;
  let start: number | undefined;
  visit(doc, {
    Scalar(_, n) {
      if ((n.type === 'QUOTE_DOUBLE' || n.type === 'QUOTE_SINGLE') && n.range?.[1] === e.pos[0]) {
        start = n.range[0];
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return start;
}

function firstLine(s: string): string {
  const i = s.indexOf('\n');
  return (i < 0 ? s : s.slice(0, i)).replace(/ at line \d+, column \d+:?$/, '');
}

function posOf(node: Node): Pos {
  const r = node.range;
  if (!r) return { offset: 0, length: 0 };
  return { offset: r[0], length: Math.max(0, r[1] - r[0]) };
}

/**
 * Plain (unquoted) keys that YAML 1.1 reads as booleans. kgraph reads YAML 1.2, where they are strings,
 * but kubectl (sigs.k8s.io/yaml, a YAML 1.1 reader) sends them as "true" / "false".
 */
const YAML11_BOOLEAN_KEYS = new Set(
  ['y', 'yes', 'n', 'no', 'on', 'off'].flatMap((w) => [w, w[0]!.toUpperCase() + w.slice(1), w.toUpperCase()]),
);

/** What `convert` noticed on the way, reported as warnings by the caller. */
interface ConvertNotes {
  duplicates: { key: string; first: Pos; again: Pos }[];
  booleanKeys: { key: string; at: Pos }[];
}

function convert(node: Node, text: string, notes: ConvertNotes): YNode {
  const duplicates = notes.duplicates;
  if (isAlias(node)) {
    // Aliases are resolved by value; positions point at the alias itself.
    return { t: 'scalar', value: null, pos: posOf(node) };
  }
  if (isMap(node)) {
    const entries: YEntry[] = [];
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const k = pair.key as Node | null;
      const key = k && isScalar(k) ? String(k.value) : k ? String(k) : '';
      const keyPos = k ? posOf(k) : posOf(node);
      if (k && isScalar(k) && k.type === 'PLAIN' && YAML11_BOOLEAN_KEYS.has(key)) {
        notes.booleanKeys.push({ key, at: keyPos });
      }
      const v = pair.value as Node | null;
      const value: YNode = v
        ? convert(v, text, notes)
        : { t: 'scalar', value: null, pos: { offset: keyPos.offset + keyPos.length, length: 0 } };
      const earlier = entries.findIndex((e) => e.key === key);
      if (earlier >= 0) {
        duplicates.push({ key, first: entries[earlier]!.keyPos, again: keyPos });
        entries.splice(earlier, 1);
      }
      entries.push({ key, keyPos, value });
    }
    return { t: 'map', entries, pos: posOf(node) };
  }
  if (isSeq(node)) {
    return { t: 'seq', items: node.items.map((i) => convert(i as Node, text, notes)), pos: posOf(node) };
  }
  if (isScalar(node)) {
    const raw = node.value;
    let value: null | boolean | number | string;
    if (raw === null || raw === undefined) value = null;
    else if (typeof raw === 'boolean' || typeof raw === 'number' || typeof raw === 'string') value = raw;
    else if (typeof raw === 'bigint') value = Number(raw);
    else value = String(raw);
    const pos = posOf(node);
    const scalar: YScalar = { t: 'scalar', value, pos };
    if (typeof value === 'string') {
      if (node.type === Scalar.PLAIN && text.slice(pos.offset, pos.offset + value.length) === value) {
        scalar.contentOffset = pos.offset;
      } else if (
        (node.type === Scalar.QUOTE_DOUBLE || node.type === Scalar.QUOTE_SINGLE) &&
        text.slice(pos.offset + 1, pos.offset + 1 + value.length) === value
      ) {
        scalar.contentOffset = pos.offset + 1;
      } else if (value.includes('${')) {
        const map = alignContent(text, node.type, pos, value);
        if (map) scalar.contentMap = map;
      }
    }
    return scalar;
  }
  return { t: 'scalar', value: null, pos: posOf(node) };
}

/**
 * Maps each character of a scalar's value onto the source by walking both in step: a character
 * matches itself, and any whitespace matches any whitespace (folded line breaks, indentation); source
 * characters that match nothing (indentation, the block header, quotes) are skipped. Undefined when the
 * value cannot be aligned (escapes that change characters), and callers fall back to the whole scalar.
 */
function alignContent(text: string, type: Scalar['type'], pos: Pos, value: string): number[] | undefined {
  const end = pos.offset + pos.length;
  let j = pos.offset;
  if (type === Scalar.BLOCK_LITERAL || type === Scalar.BLOCK_FOLDED) {
    const nl = text.indexOf('\n', j);
    if (nl < 0 || nl >= end) return undefined;
    j = nl + 1;
  } else if (type === Scalar.QUOTE_DOUBLE || type === Scalar.QUOTE_SINGLE) j++;
  const ws = (c: string | undefined) => c === ' ' || c === '\n' || c === '\t' || c === '\r';
  const map: number[] = new Array(value.length + 1);
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    while (j < end && text[j] !== c && !(ws(c) && ws(text[j]))) j++;
    if (j >= end) return undefined;
    map[i] = j++;
  }
  map[value.length] = j;
  return map;
}

/** The plain JSON value of a tree. */
export function toJson(node: YNode): JsonValue {
  switch (node.t) {
    case 'scalar':
      return node.value;
    case 'seq':
      return node.items.map(toJson);
    case 'map': {
      const out: { [k: string]: JsonValue } = {};
      for (const e of node.entries) out[e.key] = toJson(e.value);
      return out;
    }
  }
}

export function entry(map: YMap, key: string): YEntry | undefined {
  for (const e of map.entries) if (e.key === key) return e;
  return undefined;
}

export function get(node: YNode | undefined, key: string): YNode | undefined {
  if (node?.t !== 'map') return undefined;
  return entry(node, key)?.value;
}

export function str(node: YNode | undefined): string | undefined {
  return node && node.t === 'scalar' && typeof node.value === 'string' ? node.value : undefined;
}

/** True when any string in the tree contains `${`. */
export function containsExpression(node: YNode | undefined): boolean {
  if (!node) return false;
  switch (node.t) {
    case 'scalar':
      return typeof node.value === 'string' && node.value.includes('${');
    case 'seq':
      return node.items.some(containsExpression);
    case 'map':
      return node.entries.some((e) => containsExpression(e.value));
  }
}

interface Rewrite {
  text: string;
  /** Offsets (original text) of each quoted `${`. */
  rewrites: number[];
  remap: (offset: number) => number;
}

/**
 * Quotes unquoted `${…}` tokens that sit inside a flow collection. A small lexer tracks flow depth,
 * quoted strings and comments line by line; block-scalar bodies are not special-cased because a
 * rewrite is only kept when the whole file then parses.
 */
export function quoteFlowExpressions(text: string): Rewrite {
  let out = '';
  const rewrites: number[] = [];
  /** Pairs (offset in new text, cumulative shift) for remapping. */
  const shifts: { at: number; shift: number }[] = [];
  let shift = 0;
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      const nl = text.indexOf('\n', i);
      const end = nl < 0 ? text.length : nl;
      out += text.slice(i, end);
      i = end;
      continue;
    }
    if ((c === '"' || c === "'") && startsScalar(text, i)) {
      const end = skipYamlQuoted(text, i);
      out += text.slice(i, end);
      i = end;
      continue;
    }
    if (c === '$' && text[i + 1] === '{' && depth > 0) {
      const end = matchExprEnd(text, i);
      if (end > 0) {
        const expr = text.slice(i, end);
        const quoted = `"${expr.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
        rewrites.push(i);
        out += quoted;
        shift += quoted.length - expr.length;
        shifts.push({ at: out.length, shift });
        i = end;
        continue;
      }
    }
    if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && depth > 0) depth--;
    else if (c === '\n' && depth === 0) depth = 0;
    out += c;
    i++;
  }
  const remap = (offset: number): number => {
    let s = 0;
    for (const p of shifts) {
      if (p.at <= offset) s = p.shift;
      else break;
    }
    return Math.max(0, offset - s);
  };
  return { text: out, rewrites, remap };
}

/** A quote opens a quoted scalar only where a scalar can start (after `: `, `- `, `[`, `{`, `,` or indentation). */
function startsScalar(text: string, i: number): boolean {
  let j = i - 1;
  while (j >= 0 && (text[j] === ' ' || text[j] === '\t')) j--;
  if (j < 0) return true;
  const p = text[j]!;
  return p === ':' || p === '-' || p === '[' || p === '{' || p === ',' || p === '\n' || p === '?';
}

function skipYamlQuoted(text: string, i: number): number {
  const q = text[i]!;
  let j = i + 1;
  while (j < text.length) {
    const c = text[j]!;
    if (q === '"' && c === '\\') {
      j += 2;
      continue;
    }
    if (c === q) {
      if (q === "'" && text[j + 1] === "'") {
        j += 2;
        continue;
      }
      return j + 1;
    }
    j++;
  }
  return text.length;
}

/** End offset (exclusive) of the `${…}` starting at `i`, counting braces and skipping CEL strings; -1 if none. */
function matchExprEnd(text: string, i: number): number {
  let depth = 0;
  let j = i + 2;
  while (j < text.length) {
    const c = text[j]!;
    if (c === '\n') return -1;
    if (c === '"' || c === "'") {
      let k = j + 1;
      while (k < text.length && text[k] !== c && text[k] !== '\n') k += text[k] === '\\' ? 2 : 1;
      j = k + 1;
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}') {
      if (depth === 0) return j + 1;
      depth--;
    }
    j++;
  }
  return -1;
}

/**
 * The YAML key path at the cursor, read from the text's indentation. A document being typed often
 * does not parse (a key without its value yet), so completion cannot wait for the parser: the path
 * comes from the lines above the cursor, the way a reader finds it.
 */

export interface PathStep {
  /** The key, or `[]` for a sequence item. */
  key: string;
  /** 0-based line of the key (or of the item's dash). */
  line: number;
  /** Column of the key's first character. */
  indent: number;
}

export interface KeyPath {
  /** From the document root to the map the cursor is in. */
  steps: PathStep[];
  /** The cursor follows `key:` on its line: a value is being typed. */
  valueKey?: string;
  /** What is typed of the key or value so far. */
  typed: string;
}

interface LineShape {
  indent: number;
  dashIndent?: number;
  key?: string;
  blank: boolean;
}

const KEY = /^("[^"]*"|'[^']*'|[^\s#'"\-?:,[\]{}][^:#]*?|-[^\s:#][^:#]*?):(\s|$)/;

function shape(line: string): LineShape {
  let i = 0;
  while (line[i] === ' ') i++;
  let dashIndent: number | undefined;
  while (line[i] === '-' && (line[i + 1] === ' ' || i + 1 === line.length)) {
    dashIndent ??= i;
    i += 1;
    while (line[i] === ' ') i++;
  }
  const rest = line.slice(i);
  const blank = rest.trim() === '' || rest.startsWith('#');
  const m = KEY.exec(rest);
  const out: LineShape = { indent: i, blank: blank && dashIndent === undefined };
  if (dashIndent !== undefined) out.dashIndent = dashIndent;
  if (m) out.key = m[1]!.replace(/^["']|["']$/g, '');
  return out;
}

/** Splits a text into lines (without their newlines). */
export function linesOf(text: string): string[] {
  return text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/** The key path at a cursor (0-based line and character). */
export function keyPathAt(lines: readonly string[], line: number, character: number): KeyPath {
  const before = (lines[line] ?? '').slice(0, character);
  const cur = shape(before);
  const steps: PathStep[] = [];
  let want = cur.indent;
  let valueKey: string | undefined;
  let typed = before.slice(cur.indent);
  if (cur.key !== undefined) {
    const colon = before.indexOf(':', cur.indent);
    valueKey = cur.key;
    typed = before.slice(colon + 1).trimStart();
  }
  if (cur.dashIndent !== undefined) {
    steps.unshift({ key: '[]', line, indent: cur.dashIndent });
    want = cur.dashIndent;
  }
  for (let l = line - 1; l >= 0 && want > 0; l--) {
    const s = shape(lines[l]!);
    if (s.blank) continue;
    if (s.indent < want && s.key !== undefined) {
      steps.unshift({ key: s.key, line: l, indent: s.indent });
      want = s.indent;
      if (s.dashIndent !== undefined) {
        steps.unshift({ key: '[]', line: l, indent: s.dashIndent });
        want = s.dashIndent;
      }
    } else if (s.dashIndent !== undefined && s.dashIndent < want) {
      steps.unshift({ key: '[]', line: l, indent: s.dashIndent });
      want = s.dashIndent;
    }
  }
  return { steps, ...(valueKey !== undefined ? { valueKey } : {}), typed };
}

/** The scalar values of the direct children of the map opened by `key:` at `step` (e.g. a template's apiVersion). */
export function childScalars(lines: readonly string[], step: PathStep): Map<string, string> {
  const out = new Map<string, string>();
  let childIndent: number | undefined;
  for (let l = step.line + 1; l < lines.length; l++) {
    if (/^(---|\.\.\.)/.test(lines[l]!)) break;
    const s = shape(lines[l]!);
    if (s.blank) continue;
    const indent = s.dashIndent ?? s.indent;
    if (indent <= step.indent) break;
    childIndent ??= s.indent;
    if (s.indent !== childIndent || s.key === undefined || s.dashIndent !== undefined) continue;
    const raw = lines[l]!.slice(lines[l]!.indexOf(':', s.indent) + 1).trim();
    out.set(s.key, raw.replace(/\s+#.*$/, '').replace(/^["']|["']$/g, ''));
  }
  return out;
}

const PAYLOAD_KEYS = new Set(['template', 'ref', 'externalRef', 'patch', 'watch']);

/** The index of a node's payload key (`resources[].template`, `nodes[].ref`…) in a path, or -1. */
export function payloadIndex(steps: readonly PathStep[]): number {
  return steps.findIndex(
    (s, i) =>
      PAYLOAD_KEYS.has(s.key) &&
      steps[i - 1]?.key === '[]' &&
      (steps[i - 2]?.key === 'resources' || steps[i - 2]?.key === 'nodes'),
  );
}

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: messages quote kgraph ${…} syntax
/**
 * Quick fixes from the compiler's own suggestions: a diagnostic that says `did you mean "x"` replaces
 * its range with `x`, and so does an undefined field close to a declared one; an unquoted `${…}` in a flow collection (KG2002) gets its quotes.
 */
import { closest } from '../diag/suggest.ts';
import { GraphCode } from '../graph/codes.ts';
import { expressionsIn } from './textScan.ts';

export interface TextFix {
  title: string;
  /** Replace text[start, end) with `text`. */
  edits: { start: number; end: number; text: string }[];
}

export interface FixableDiagnostic {
  code: string | undefined;
  message: string;
  start: number;
  end: number;
}

const DID_YOU_MEAN = /did you mean "([^"]+)"/;

/**
 * `fieldsAt(offset)`: the fields the receiver of a misspelt field declares (the type checker's message
 * names only the field; the editor knows the schema behind the receiver).
 */
export function fixesFor(
  text: string,
  d: FixableDiagnostic,
  fieldsAt?: (offset: number) => string[],
): TextFix[] {
  const m = DID_YOU_MEAN.exec(d.message);
  const word =
    m?.[1] ??
    (d.code === GraphCode.UndefinedField && fieldsAt
      ? closest(text.slice(d.start, d.end), fieldsAt(d.start))
      : undefined);
  if (word !== undefined)
    return [{ title: `Change to "${word}"`, edits: [{ start: d.start, end: d.end, text: word }] }];
  if (d.code === GraphCode.FlowExpressionQuoted) {
    const e = expressionsIn(text.slice(d.start)).find((x) => x.start === 0);
    if (!e) return [];
    return [
      {
        title: 'Quote the expression',
        edits: [
          { start: d.start, end: d.start, text: '"' },
          { start: d.start + e.end, end: d.start + e.end, text: '"' },
        ],
      },
    ];
  }
  return [];
}

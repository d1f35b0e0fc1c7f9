// biome-ignore-all lint/suspicious/noTemplateCurlyInString: messages quote kgraph ${…} syntax
/**
 * Quick fixes from the compiler's own suggestions: a diagnostic that says `did you mean "x"` replaces
 * its range with `x`; an unquoted `${…}` in a flow collection (KG2002) gets its quotes.
 */
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

export function fixesFor(text: string, d: FixableDiagnostic): TextFix[] {
  const m = DID_YOU_MEAN.exec(d.message);
  if (m) {
    const word = m[1]!;
    return [{ title: `Change to "${word}"`, edits: [{ start: d.start, end: d.end, text: word }] }];
  }
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

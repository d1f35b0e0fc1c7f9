/**
 * Every section sign in the code, the tests and the benchmarks cites a section of the design documents
 * (docs/design/) that exists: `design/<document>.md §<number>`, more numbers of the same document following
 * the first (`design/graph.md §13.2, §23.1`, `design/graph.md §7–§15`). A reader can open what the code
 * cites, and a section renumbered or removed fails here. The code also names no tracker issues: it says
 * what it does and why.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '../../..');
const designDir = join(root, 'docs/design');
const SIGN = '\u00a7';
const NUMBER = `${SIGN}([A-Z]?\\d+(?:\\.\\d+)*)`;
/** `design/x.md` and the run of section numbers after it. */
const CITATION = new RegExp(`design/([a-z-]+)\\.md((?:(?:\\s*(?:,|–|-|/|and)\\s*|\\s+)${NUMBER})+)`, 'g');
const SCANNED = ['src', 'test', 'bench'];
const EXTENSIONS = /\.(ts|js|mjs|yaml|yml|md|json)$/;
const SELF = relative(root, import.meta.filename);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.')) return [];
    if (statSync(path).isDirectory()) return files(path);
    return EXTENSIONS.test(name) ? [path] : [];
  });
}

/** Section numbers of each design document, from headings that start with the number. */
function headings(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const name of readdirSync(designDir).filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(join(designDir, name), 'utf8');
    const numbers = [...text.matchAll(/^#{2,4} ([A-Z]?\d+(?:\.\d+)*) /gm)].map((m) => m[1]!);
    out.set(name.replace(/\.md$/, ''), new Set(numbers));
  }
  return out;
}

/** Each problem of one file's citations: a number without document, or naming no heading. */
export function citationProblems(text: string, sections: Map<string, Set<string>>): string[] {
  const covered = new Set<number>();
  const problems: string[] = [];
  for (const m of text.matchAll(CITATION)) {
    const doc = m[1]!;
    const start = m.index + m[0].length - m[2]!.length;
    for (const n of m[2]!.matchAll(new RegExp(NUMBER, 'g'))) {
      covered.add(start + n.index);
      if (!sections.get(doc)?.has(n[1]!)) problems.push(`design/${doc}.md ${SIGN}${n[1]} has no heading`);
    }
  }
  for (let at = text.indexOf(SIGN); at >= 0; at = text.indexOf(SIGN, at + 1)) {
    if (covered.has(at)) continue;
    const line = text.slice(0, at).split('\n').length;
    problems.push(`line ${line}: ${text.slice(at, at + 12).split('\n')[0]} names no design document`);
  }
  return problems;
}

describe('design references', () => {
  const sections = headings();

  it('the checker accepts citations and refuses bare or dangling ones', () => {
    const s = new Map([['graph', new Set(['7', '13.2', '15', '23.1'])]]);
    assert.deepEqual(
      citationProblems(`(design/graph.md ${SIGN}13.2, ${SIGN}23.1; design/graph.md ${SIGN}7–${SIGN}15)`, s),
      [],
    );
    assert.deepEqual(citationProblems(`see design/graph.md ${SIGN}13.2 step 2`, s), []);
    assert.deepEqual(citationProblems(`(${SIGN}13.2)`, s), [`line 1: ${SIGN}13.2) names no design document`]);
    assert.deepEqual(citationProblems(`design/graph.md ${SIGN}99`, s), [
      `design/graph.md ${SIGN}99 has no heading`,
    ]);
    assert.deepEqual(citationProblems(`design/planes.md ${SIGN}7`, s), [
      `design/planes.md ${SIGN}7 has no heading`,
    ]);
  });

  it('every design document has numbered sections', () => {
    for (const doc of ['graph', 'rgd', 'planes', 'sdk', 'platform'])
      assert.ok((sections.get(doc)?.size ?? 0) > 5, `docs/design/${doc}.md`);
  });

  it(`every ${SIGN} in src/, test/ and bench/ resolves to a heading of docs/design/`, () => {
    const problems: string[] = [];
    for (const dir of SCANNED)
      for (const path of files(join(root, dir))) {
        if (relative(root, path) === SELF) continue;
        const text = readFileSync(path, 'utf8');
        if (!text.includes(SIGN)) continue;
        for (const p of citationProblems(text, sections)) problems.push(`${relative(root, path)}: ${p}`);
      }
    assert.deepEqual(problems, []);
  });

  it('src/ names no tracker issues', () => {
    const found: string[] = [];
    for (const path of files(join(root, 'src'))) {
      const text = readFileSync(path, 'utf8');
      for (const m of text.matchAll(/\bissues? #?\d+|#\d+ items?\b|[(,] #\d+\)/gi))
        found.push(`${relative(root, path)}:${text.slice(0, m.index).split('\n').length}: ${m[0]}`);
    }
    assert.deepEqual(found, []);
  });
});

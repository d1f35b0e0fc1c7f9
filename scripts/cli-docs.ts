/**
 * Keeps the command pages (docs/cli/*.md) equal to what the commands print. A page holds prose and
 * marked blocks that this script fills:
 *
 *   <!-- kgraph: validate --help -->            the block after it is `$ npx kgraph validate --help`
 *   ```console                                  and its output, from a real run of the CLI
 *   …
 *   ```
 *   <!-- kgraph: cel '1 + 2' (lines=12) -->     `(lines=N)` keeps the first N lines of a long output
 *
 * Every run is offline, from the repository root, with colours off and a pipe for output (so help is
 * wrapped at commander's default 80 columns). Blocks under `<!-- captured once … -->` (cluster
 * commands) are written by hand and left alone.
 *
 *   node --import tsx scripts/cli-docs.ts           rewrite the pages
 *   node --import tsx scripts/cli-docs.ts --check   exit 1 naming each page whose blocks drifted
 *
 * test/unit/cli/cli-docs.test.ts runs the check.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const root = resolve(import.meta.dirname, '..');
export const pagesDir = join(root, 'docs/cli');

/** `<!-- kgraph: ARGS (lines=N) -->` then a fenced block (or nothing yet). */
const BLOCK = /<!-- kgraph: (.+?)(?: \(lines=(\d+)\))? -->\n(?:```console\n[\s\S]*?\n```\n)?/g;

export interface Block {
  /** The command line after `kgraph`, as written in the marker. */
  args: string;
  lines?: number;
}

/** The command-line words of a marker: spaces split, single or double quotes group (as a shell would). */
export function splitArgs(s: string): string[] {
  const out: string[] = [];
  const re = /'([^']*)'|"([^"]*)"|(\S+)/g;
  for (let m = re.exec(s); m; m = re.exec(s)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

/** The checkout's own path (in defaults such as `--data-dir`) as the user's: relative to the repository. */
export function relativeToRoot(text: string): string {
  return text.split(`${root}/`).join('').split(root).join('.');
}

export function blocksOf(page: string): Block[] {
  return [...page.matchAll(BLOCK)].map((m) => ({
    args: m[1]!,
    ...(m[2] ? { lines: Number(m[2]) } : {}),
  }));
}

/** Runs `kgraph ARGS` as a user would (the real binary), stdout then stderr, and the exit code if not 0. */
export function run(args: string): Promise<string> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(root, 'bin/kgraph.js'), ...splitArgs(args)],
      {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', KGRAPH_SOURCES: process.env.KGRAPH_SOURCES ?? '1' },
        maxBuffer: 16 << 20,
      },
      (err, stdout, stderr) => {
        const code = err && typeof err.code === 'number' ? err.code : 0;
        let text = relativeToRoot(`${stdout}${stderr}`).replace(/\n+$/, '');
        if (code !== 0) text += `\n[exit ${code}]`;
        done(text);
      },
    );
  });
}

/** The fenced block of one run, cut to `lines` lines (with a `…` line) when asked. */
export function fence(b: Block, output: string): string {
  let lines = output.split('\n');
  if (b.lines !== undefined && lines.length > b.lines) lines = [...lines.slice(0, b.lines), '…'];
  return `\`\`\`console\n$ npx kgraph ${b.args}\n${lines.join('\n')}\n\`\`\`\n`;
}

/** The page with every block filled from `outputs` (keyed by the marker's args). */
export function fill(page: string, outputs: ReadonlyMap<string, string>): string {
  return page.replace(BLOCK, (whole, args: string, lines: string | undefined) => {
    const out = outputs.get(args);
    if (out === undefined) return whole;
    const marker = whole.slice(0, whole.indexOf('-->') + 4);
    return `${marker}${fence({ args, ...(lines ? { lines: Number(lines) } : {}) }, out)}`;
  });
}

export function pages(): string[] {
  return readdirSync(pagesDir)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => join(pagesDir, f));
}

/** Runs every block of every page, `limit` at a time. */
export async function outputsOf(files: readonly string[], limit = 2): Promise<Map<string, string>> {
  const all = [...new Set(files.flatMap((f) => blocksOf(readFileSync(f, 'utf8')).map((b) => b.args)))];
  const outputs = new Map<string, string>();
  let next = 0;
  const worker = async () => {
    while (next < all.length) {
      const args = all[next++]!;
      outputs.set(args, await run(args));
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return outputs;
}

async function mainScript(argv: readonly string[]): Promise<void> {
  const check = argv.includes('--check');
  const files = pages();
  const outputs = await outputsOf(files);
  const drifted: string[] = [];
  for (const f of files) {
    const before = readFileSync(f, 'utf8');
    const after = fill(before, outputs);
    if (after === before) continue;
    drifted.push(f);
    if (!check) writeFileSync(f, after);
  }
  for (const f of drifted) process.stdout.write(`${check ? 'drifted' : 'updated'}: ${f}\n`);
  if (check && drifted.length > 0) {
    process.stdout.write('run: node --import tsx scripts/cli-docs.ts\n');
    process.exitCode = 1;
  }
}

if (import.meta.filename === process.argv[1]) await mainScript(process.argv.slice(2));

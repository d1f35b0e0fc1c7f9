/**
 * The directory `kgraph synth --out-dir` writes (issue #17 item 2). It records the files
 * it wrote in `.kgraph-synth.json`, so the next synth removes exactly those it no longer
 * writes (a stale manifest from an earlier package would otherwise be re-applied by a
 * later `kgraph deploy DIR`), and never touches any other file. `deploy DIR` reads the
 * recorded files when the record exists.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { KgraphError } from '../diag/diagnostic.ts';

export const SYNTH_RECORD = '.kgraph-synth.json';

interface SynthRecord {
  /** File names (no directories) synth wrote into this directory, in apply order. */
  files: string[];
}

/** The files the last synth recorded in `dir`, or undefined when it has no record. */
export function recordedFiles(dir: string): string[] | undefined {
  const path = join(dir, SYNTH_RECORD);
  if (!existsSync(path)) return undefined;
  try {
    const rec = JSON.parse(readFileSync(path, 'utf8')) as Partial<SynthRecord>;
    if (!Array.isArray(rec.files) || rec.files.some((f) => typeof f !== 'string' || basename(f) !== f))
      throw new Error('"files" must be a list of file names');
    return rec.files;
  } catch (err) {
    throw new KgraphError('KG7107', `${path}: not a synth record: ${(err as Error).message}`);
  }
}

/**
 * Writes `docs` into `dir`: removes what the previous synth wrote and this one does
 * not, writes the new files and the record. Returns the written paths and the removed ones.
 */
export function writeOutDir(
  dir: string,
  docs: readonly { name: string; text: string }[],
): { written: string[]; removed: string[] } {
  mkdirSync(dir, { recursive: true });
  const previous = recordedFiles(dir) ?? [];
  const now = new Set(docs.map((d) => d.name));
  const removed: string[] = [];
  for (const f of previous) {
    if (now.has(f)) continue;
    const path = join(dir, f);
    if (existsSync(path)) {
      rmSync(path);
      removed.push(path);
    }
  }
  const written = docs.map((d) => {
    const path = join(dir, d.name);
    writeFileSync(path, d.text);
    return path;
  });
  writeFileSync(join(dir, SYNTH_RECORD), `${JSON.stringify({ files: docs.map((d) => d.name) }, null, 1)}\n`);
  return { written, removed };
}

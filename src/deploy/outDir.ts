/**
 * The directory `kgraph synth --out-dir` writes. It records the files
 * it wrote in `.kgraph-synth.json` — their names in apply order and the SHA-256 of each —
 * so the next synth removes exactly those it no longer writes (a stale manifest from an
 * earlier package would otherwise be re-applied by a later `kgraph deploy DIR`), and never
 * touches any other file. `deploy DIR` reads the directory through this record (load.ts).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { KgraphError } from '../diag/diagnostic.ts';

export const SYNTH_RECORD = '.kgraph-synth.json';

export interface SynthRecord {
  /** File names (no directories) synth wrote into this directory, in apply order. */
  files: string[];
  /** SHA-256 (hex) of each file as synth wrote it; absent in records of earlier versions. */
  sha256?: Record<string, string>;
}

export const sha256Of = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

/** The record of the last synth into `dir`, or undefined when it has none. */
export function readSynthRecord(dir: string): SynthRecord | undefined {
  const path = join(dir, SYNTH_RECORD);
  if (!existsSync(path)) return undefined;
  try {
    const rec = JSON.parse(readFileSync(path, 'utf8')) as Partial<SynthRecord>;
    if (
      !Array.isArray(rec.files) ||
      rec.files.some((f) => typeof f !== 'string' || basename(f) !== f || f === '')
    )
      throw new Error('"files" must be a list of file names');
    if (new Set(rec.files).size !== rec.files.length) throw new Error('"files" names a file twice');
    const sums = rec.sha256;
    if (
      sums !== undefined &&
      (typeof sums !== 'object' || sums === null || Object.values(sums).some((s) => typeof s !== 'string'))
    )
      throw new Error('"sha256" must map file names to hex digests');
    return { files: rec.files, ...(sums ? { sha256: sums } : {}) };
  } catch (err) {
    throw new KgraphError('KG7107', `${path}: not a synth record: ${(err as Error).message}`);
  }
}

/** The files the last synth recorded in `dir`, or undefined when it has no record. */
export function recordedFiles(dir: string): string[] | undefined {
  return readSynthRecord(dir)?.files;
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
  const record: SynthRecord = {
    files: docs.map((d) => d.name),
    sha256: Object.fromEntries(docs.map((d) => [d.name, sha256Of(d.text)])),
  };
  writeFileSync(join(dir, SYNTH_RECORD), `${JSON.stringify(record, null, 1)}\n`);
  return { written, removed };
}

/** Reads manifests for the deployer from YAML files or a directory of them (sorted by file name). */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import YAML from 'yaml';
import { KgraphError } from '../diag/diagnostic.ts';
import type { Manifest } from '../sdk/index.ts';
import { recordedFiles } from './outDir.ts';

/** A directory written by `synth --out-dir` gives exactly the files its record lists. */
export function loadManifests(path: string): Manifest[] {
  const files = statSync(path).isDirectory()
    ? (
        recordedFiles(path) ??
        readdirSync(path)
          .filter((f) => ['.yaml', '.yml', '.json'].includes(extname(f)))
          .sort()
      ).map((f) => join(path, f))
    : [path];
  const out: Manifest[] = [];
  for (const file of files) {
    for (const doc of YAML.parseAllDocuments(readFileSync(file, 'utf8'))) {
      if (doc.errors.length > 0) throw new KgraphError('KG7101', `${file}: ${doc.errors[0]!.message}`);
      const v = doc.toJSON() as unknown;
      if (v === null || v === undefined) continue;
      const m = v as Partial<Manifest>;
      if (
        typeof m.apiVersion !== 'string' ||
        typeof m.kind !== 'string' ||
        typeof m.metadata?.name !== 'string'
      ) {
        throw new KgraphError('KG7102', `${file}: every document needs apiVersion, kind and metadata.name`);
      }
      out.push(m as Manifest);
    }
  }
  return out;
}

/**
 * What `kgraph deploy` reads: a YAML (or JSON) file, a directory `kgraph synth --out-dir` wrote, or a
 * plain directory of manifests.
 *
 * A synth directory is read through synth's record (`.kgraph-synth.json`, outDir.ts), never by
 * listing the directory: exactly the files synth wrote, in the order it recorded (its apply order,
 * so the plan's waves are those of deploying the package itself).
 *
 * - A recorded file that is missing is an **error** (KG7109): the objects it held would be absent
 *   from the build, and the deploy would prune them.
 * - A manifest file (`.yaml`, `.yml`, `.json`) synth did not write is **not deployed, with a
 *   warning** naming it. Not an error: it cannot change what is deployed, and synth itself leaves
 *   such files alone (a kustomization.yaml, notes), so refusing would break a directory synth
 *   accepts. Not applied silently either: `kubectl apply -f DIR` would apply it, so a user coming
 *   from kubectl must be told it was left out, and how to deploy it.
 * - A recorded file changed since synth wrote it (its SHA-256 differs) is deployed as it is now,
 *   with a warning: a hand edit of generated output is deliberate but is lost at the next synth.
 * - A subdirectory is never read (synth writes none; kubectl reads none without -R).
 *
 * A directory without a record is a plain manifests directory, read as `kubectl apply -f DIR`
 * reads one: its `.yaml`, `.yml` and `.json` files, sorted by name, not recursively.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import YAML from 'yaml';
import { type Diagnostic, KgraphError } from '../diag/diagnostic.ts';
import type { Manifest } from '../sdk/index.ts';
import { readSynthRecord, SYNTH_RECORD, sha256Of } from './outDir.ts';

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

export interface LoadedManifests {
  /** The objects, in file order and document order within a file. */
  manifests: Manifest[];
  /** The files read, in that order. */
  files: string[];
  /** What was read as `synth`'s output directory, a plain `directory`, or one `file`. */
  source: 'synth' | 'directory' | 'file';
  /** Files left out (KG7110) or changed by hand (KG7111), located at the file. */
  warnings: Diagnostic[];
}

function manifestFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name !== SYNTH_RECORD && MANIFEST_EXTENSIONS.has(extname(e.name)))
    .map((e) => e.name)
    .sort();
}

/** The objects of one file: every document needs apiVersion, kind and metadata.name. */
function parseFile(file: string, text: string): Manifest[] {
  const out: Manifest[] = [];
  for (const doc of YAML.parseAllDocuments(text)) {
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
  return out;
}

/** Reads a deploy input (see the module comment for the rules of a synth directory). */
export function readManifests(path: string): LoadedManifests {
  if (!statSync(path).isDirectory()) {
    return {
      manifests: parseFile(path, readFileSync(path, 'utf8')),
      files: [path],
      source: 'file',
      warnings: [],
    };
  }
  const record = readSynthRecord(path);
  if (!record) {
    const files = manifestFiles(path).map((f) => join(path, f));
    return {
      manifests: files.flatMap((f) => parseFile(f, readFileSync(f, 'utf8'))),
      files,
      source: 'directory',
      warnings: [],
    };
  }
  const recordPath = join(path, SYNTH_RECORD);
  const missing = record.files.filter((f) => !existsSync(join(path, f)));
  if (missing.length > 0) {
    throw new KgraphError(
      'KG7109',
      `${path}: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} listed in ${SYNTH_RECORD} but missing; ` +
        `deploying the rest would prune ${missing.length === 1 ? 'its' : 'their'} objects. Run kgraph synth --out-dir ${path} again`,
    );
  }
  const warnings: Diagnostic[] = [];
  const recorded = new Set(record.files);
  const extra = manifestFiles(path).filter((f) => !recorded.has(f));
  for (const f of extra) {
    warnings.push({
      severity: 'warning',
      code: 'KG7110',
      message:
        `not deployed: kgraph synth did not write it (it is not in ${recordPath}); ` +
        `deploy it on its own (kgraph deploy ${join(path, f)} --name …) or build it in the package`,
      location: { file: join(path, f) },
    });
  }
  const manifests: Manifest[] = [];
  const files = record.files.map((f) => join(path, f));
  for (const [i, f] of record.files.entries()) {
    const text = readFileSync(files[i]!, 'utf8');
    const want = record.sha256?.[f];
    if (want !== undefined && want !== sha256Of(text))
      warnings.push({
        severity: 'warning',
        code: 'KG7111',
        message:
          'changed since kgraph synth wrote it; deploying it as it is now (the next synth overwrites it)',
        location: { file: files[i]! },
      });
    manifests.push(...parseFile(files[i]!, text));
  }
  return { manifests, files, source: 'synth', warnings };
}

/** The objects of a deploy input, in apply order (readManifests without its warnings). */
export function loadManifests(path: string): Manifest[] {
  return readManifests(path).manifests;
}

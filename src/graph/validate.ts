/**
 * Validation of files and directories: the pure core of `kgraph validate` and `kgraph graph`.
 * Reads the files it is handed (no other I/O), uses CRD documents as schema sources, compiles every
 * Graph / RGD document and collects the reports.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from '../diag/diagnostic.ts';
import { fileErrorReason } from '../diag/fileError.ts';
import {
  createSchemaResolver,
  type SchemaResolverOptions,
  toKindLookup,
} from '../schema/sources/resolver.ts';
import { builtinKindResolver } from './builtinKinds.ts';
import { GraphCode } from './codes.ts';
import { type CompileResult, compileDocument } from './compile.ts';
import { isCrdDocument } from './crdKinds.ts';
import type { ObjectReport } from './format.ts';
import { chainResolvers, type KindResolver } from './kinds.ts';
import type { JsonValue } from './model.ts';
import { typecheckGraph } from './typecheck.ts';
import { parseYamlFile, SourceFile, toJson, type YDocument, type YNode } from './yamlTree.ts';

type LiveOption = NonNullable<SchemaResolverOptions['live']>;

export interface ValidateOptions {
  /** CRD files (`--crd`), consulted first. */
  crdFiles?: readonly string[];
  /** Further kind sources (live cluster, offline bundle), consulted after CRDs, before the built-in table. */
  resolvers?: readonly KindResolver[];
  /** Disable the table of kgraph's own kinds (tests). */
  noBuiltins?: boolean;
  /** Offline bundle path, or false to disable it (default: the committed bundle). */
  bundle?: string | false;
  /** kro compatibility (default true): see CompileOptions.kroCompat. */
  kroCompat?: boolean;
  /**
   * Inputs given by their text instead of a path (`-f -`: the CLI reads standard input and names it
   * `<stdin>`): a path in `paths` that is a key here is never looked up on disk.
   */
  inline?: ReadonlyMap<string, string>;
}

export interface ValidateResult {
  objects: ObjectReport[];
  /** Diagnostics not attached to an object (unreadable files, YAML errors, bad CRD files). */
  fileDiagnostics: Diagnostic[];
  sources: Map<string, SourceFile>;
  /** The compile result of each object, in the order of `objects`. */
  results: CompileResult[];
}

/** Expands directories (recursively, `.yaml`/`.yml`, sorted) and keeps files as given. */
export function expandInputs(
  paths: readonly string[],
  diagnostics: Diagnostic[],
  inline?: ReadonlyMap<string, string>,
): string[] {
  const out: string[] = [];
  const walk = (p: string, explicit: boolean): void => {
    if (explicit && inline?.has(p)) {
      out.push(p);
      return;
    }
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(p);
    } catch (err) {
      diagnostics.push(unreadable(p, err));
      return;
    }
    if (st.isDirectory()) {
      for (const name of readdirSync(p).sort()) walk(join(p, name), false);
    } else if (explicit || /\.ya?ml$/i.test(p)) {
      out.push(p);
    }
  };
  for (const p of paths) walk(p, true);
  return out;
}

function unreadable(file: string, err: unknown): Diagnostic {
  return {
    severity: 'error',
    code: GraphCode.UnreadableInput,
    message: `cannot read: ${fileErrorReason(err)}`,
    location: { file },
  };
}

/** Parses the inputs; CRD documents among them become schema sources (not validated as objects). */
function load(paths: readonly string[], inline?: ReadonlyMap<string, string>) {
  const fileDiagnostics: Diagnostic[] = [];
  const sources = new Map<string, SourceFile>();
  const crdObjects: JsonValue[] = [];
  const graphDocs: YDocument[] = [];
  for (const file of expandInputs(paths, fileDiagnostics, inline)) {
    let text: string;
    try {
      text = inline?.get(file) ?? readFileSync(file, 'utf8');
    } catch (err) {
      fileDiagnostics.push(unreadable(file, err));
      continue;
    }
    let parsed: ReturnType<typeof parseYamlFile>;
    try {
      parsed = parseYamlFile(file, text);
    } catch (err) {
      // One file's failure never hides another file's result.
      fileDiagnostics.push(internalFailure(err, { file }));
      continue;
    }
    fileDiagnostics.push(...parsed.diagnostics);
    sources.set(file, parsed.documents[0]?.source ?? new SourceFile(file, text));
    for (const doc of parsed.documents) {
      const json = doc.root ? toJson(doc.root) : null;
      if (isCrdDocument(json)) crdObjects.push(json);
      else graphDocs.push(doc);
    }
  }
  return { fileDiagnostics, sources, crdObjects, graphDocs };
}

/** Every literal apiVersion in the documents (what a live source must load before compiling). */
function apiVersionsOf(docs: readonly YDocument[]): string[] {
  const out = new Set<string>();
  const walk = (n: YNode | undefined): void => {
    if (!n) return;
    if (n.t === 'seq') n.items.forEach(walk);
    else if (n.t === 'map') {
      for (const e of n.entries) {
        if (e.key === 'apiVersion' && e.value.t === 'scalar' && typeof e.value.value === 'string') {
          if (!e.value.value.includes('${')) out.add(e.value.value);
        } else walk(e.value);
      }
    }
  };
  for (const d of docs) walk(d.root);
  return [...out];
}

function buildResolver(
  options: ValidateOptions,
  crdObjects: readonly JsonValue[],
  fileDiagnostics: Diagnostic[],
  live?: LiveOption,
) {
  const setup = createSchemaResolver({
    crdFiles: options.crdFiles ?? [],
    crdObjects,
    ...(live ? { live } : {}),
    ...(options.bundle !== undefined ? { bundle: options.bundle } : {}),
  });
  fileDiagnostics.push(...setup.diagnostics);
  const lookup = toKindLookup(setup.resolver);
  const sources: KindResolver = {
    lookup: (apiVersion, kind) => lookup.lookup(apiVersion, kind),
    describe: () => lookup.describe(),
    explain: (apiVersion, kind) => {
      const r = setup.resolver.resolve(apiVersion, kind);
      return 'unknown' in r ? r.reason : undefined;
    },
  };
  const resolvers: KindResolver[] = [sources, ...(options.resolvers ?? [])];
  if (!options.noBuiltins) resolvers.push(builtinKindResolver());
  return { chained: setup.resolver, resolver: chainResolvers(resolvers) };
}

function compileAll(
  graphDocs: readonly YDocument[],
  resolver: KindResolver,
  rest: Pick<ValidateResult, 'fileDiagnostics' | 'sources'>,
  kroCompat = true,
): ValidateResult {
  const objects: ObjectReport[] = [];
  const results: CompileResult[] = [];
  for (const doc of graphDocs) {
    const result = compileGuarded(doc, resolver, kroCompat);
    results.push(result);
    objects.push({
      file: doc.file,
      apiVersion: result.object.apiVersion,
      kind: result.object.kind,
      name: result.object.name,
      accepted: result.accepted,
      diagnostics: result.diagnostics,
    });
  }
  return { objects, results, ...rest };
}

/**
 * Compiles one document; an exception (a compiler bug, or an input that defeats a depth limit) becomes
 * an error diagnostic on that document instead of ending the whole call.
 */
function compileGuarded(doc: YDocument, resolver: KindResolver, kroCompat: boolean): CompileResult {
  try {
    return compileDocument(doc, { resolver, typecheck: typecheckGraph, kroCompat });
  } catch (err) {
    const at = doc.root ? doc.source.location(doc.root.pos.offset, 1) : { file: doc.file };
    return {
      object: { apiVersion: '', kind: '', name: '' },
      diagnostics: [internalFailure(err, at)],
      accepted: false,
    };
  }
}

function internalFailure(err: unknown, location: Diagnostic['location']): Diagnostic {
  const message = err instanceof Error ? err.message : String(err);
  const tooDeep = err instanceof RangeError && /call stack/i.test(message);
  return {
    severity: 'error',
    code: GraphCode.InternalFailure,
    message: tooDeep
      ? 'the document is nested too deeply to be checked'
      : `the compiler failed on this document: ${message}`,
    ...(location !== undefined ? { location } : {}),
  };
}

/** Validates files and directories with offline schema sources (CRD files, CRDs among the inputs, the bundle). */
export function validatePaths(paths: readonly string[], options: ValidateOptions = {}): ValidateResult {
  const { fileDiagnostics, sources, crdObjects, graphDocs } = load(paths, options.inline);
  const { resolver } = buildResolver(options, crdObjects, fileDiagnostics);
  return compileAll(graphDocs, resolver, { fileDiagnostics, sources }, options.kroCompat !== false);
}

/** As validatePaths, also consulting a live cluster (after the CRD files, before the bundle). */
export async function validatePathsLive(
  paths: readonly string[],
  live: LiveOption,
  options: ValidateOptions = {},
): Promise<ValidateResult> {
  const { fileDiagnostics, sources, crdObjects, graphDocs } = load(paths, options.inline);
  const { chained, resolver } = buildResolver(options, crdObjects, fileDiagnostics, live);
  await chained.prepare(apiVersionsOf(graphDocs));
  return compileAll(graphDocs, resolver, { fileDiagnostics, sources }, options.kroCompat !== false);
}

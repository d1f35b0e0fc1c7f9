/**
 * The controller's view of the compiler and the engine: compile a Graph object read from the API
 * server (schemas from the live cluster through discovery and OpenAPI v3, kgraph's own kinds as a
 * fallback for scopes), and evaluate it against an observed state. The reconciler depends only on
 * the two functions here.
 */
import { stringify } from 'yaml';
import type { Diagnostic } from '../diag/diagnostic.ts';
import { builtinKindResolver } from '../graph/builtinKinds.ts';
import { compileDocument } from '../graph/compile.ts';
import { chainResolvers } from '../graph/kinds.ts';
import type { CompiledGraph } from '../graph/model.ts';
import { typecheckGraph } from '../graph/typecheck.ts';
import { parseYamlFile, type SourceFile } from '../graph/yamlTree.ts';
import type { RestClient } from '../kube/index.ts';
import { type KubeLive, kubeLiveFetcher } from '../kube/liveSchema.ts';
import { evaluateSliced } from '../runtime/engine.ts';
import type { ObservedState } from '../runtime/observed.ts';
import type { EvaluationResult } from '../runtime/types.ts';
import { LiveSchemaSource } from '../schema/sources/live.ts';
import { ChainedSchemaResolver, toKindLookup } from '../schema/sources/resolver.ts';

export interface CompileOutcome {
  accepted: boolean;
  diagnostics: Diagnostic[];
  compiled: CompiledGraph | undefined;
  /** True when a kind could not be resolved: a CRD may still be on its way, so retry with backoff. */
  unknownKind: boolean;
  /** The YAML text that was compiled (diagnostic locations point into it; `kgraph ui` shows it). */
  source?: SourceFile;
}

/** Compiles Graph objects against a live cluster's schemas. `invalidate()` after CRD changes. */
export class GraphCompiler {
  private readonly live: KubeLive;

  constructor(client: RestClient) {
    this.live = kubeLiveFetcher(client, client.server, { cacheDir: false });
  }

  invalidate(): void {
    this.live.invalidate();
  }

  async compile(graph: Record<string, unknown>): Promise<CompileOutcome> {
    const { status: _status, ...rest } = graph;
    const meta = { ...(rest.metadata as Record<string, unknown>) };
    delete meta.managedFields;
    const source = { ...rest, metadata: meta };
    // The name positions in messages refer to: the object as the compiler read it (YAML of the stored object).
    const file =
      meta.namespace === undefined
        ? `${String(rest.kind)} ${String(meta.name)}`
        : `${String(rest.kind)} ${String(meta.namespace)}/${String(meta.name)}`;
    const parsed = parseYamlFile(file, stringify(source));
    const doc = parsed.documents[0];
    if (!doc) throw new Error(`${file}: nothing to compile`);
    // A fresh source per compile: LiveSchemaSource remembers misses, and a CRD may have appeared since.
    const chained = new ChainedSchemaResolver([new LiveSchemaSource(this.live.fetcher, this.live.server)]);
    await chained.prepare(literalApiVersions(source));
    const resolver = chainResolvers([toKindLookup(chained), builtinKindResolver()]);
    const result = compileDocument(doc, { resolver, typecheck: typecheckGraph });
    const diagnostics = [...parsed.diagnostics, ...result.diagnostics];
    return {
      accepted: result.accepted && result.graph !== undefined,
      diagnostics,
      compiled: result.graph,
      unknownKind: diagnostics.some((d) => d.severity === 'error' && d.code === 'KG3001'),
      source: doc.source,
    };
  }
}

/** Every literal `apiVersion` value in the object (what the live source must load before compiling). */
export function literalApiVersions(v: unknown, out = new Set<string>()): string[] {
  if (Array.isArray(v)) for (const x of v) literalApiVersions(x, out);
  else if (typeof v === 'object' && v !== null) {
    for (const [k, x] of Object.entries(v)) {
      if (k === 'apiVersion' && typeof x === 'string' && !x.includes('${')) out.add(x);
      else literalApiVersions(x, out);
    }
  }
  return [...out];
}

/**
 * One engine pass, returning to the event loop between expressions (every 20 ms of evaluation), so a
 * Graph with expensive expressions never holds up /healthz, watches or other reconciles.
 */
export function evaluateGraph(
  compiled: CompiledGraph,
  observed: ObservedState,
  namespace: string,
  maxCollectionSize?: number,
): Promise<EvaluationResult> {
  return evaluateSliced(compiled, {
    observed,
    namespace,
    ...(maxCollectionSize !== undefined ? { maxCollectionSize } : {}),
  });
}

/**
 * The controller's view of the compiler and the engine: compile a Graph object read from the API
 * server (schemas from the live cluster through discovery and OpenAPI v3, kgraph's own kinds as a
 * fallback for scopes), and evaluate it against an observed state. The reconciler depends only on
 * the two functions here.
 */
import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import type { Diagnostic } from '../../diag/diagnostic.ts';
import { builtinKindResolver } from '../../graph/builtinKinds.ts';
import { compileDocument } from '../../graph/compile.ts';
import { chainResolvers } from '../../graph/kinds.ts';
import type { CompiledFrame, CompiledGraph } from '../../graph/model.ts';
import { typecheckGraph } from '../../graph/typecheck.ts';
import { parseYamlFile, type SourceFile } from '../../graph/yamlTree.ts';
import type { RestClient } from '../../kube/index.ts';
import { type KubeLive, kubeLiveFetcher } from '../../kube/liveSchema.ts';
import { evaluateSliced } from '../../runtime/evaluate.ts';
import type { ObservedState } from '../../runtime/observed.ts';
import type { EvaluationResult } from '../../runtime/types.ts';
import { LiveSchemaSource } from '../../schema/sources/live.ts';
import { ChainedSchemaResolver, toKindLookup } from '../../schema/sources/resolver.ts';

export interface CompileOutcome {
  accepted: boolean;
  diagnostics: Diagnostic[];
  compiled: CompiledGraph | undefined;
  /** True when a kind could not be resolved: a CRD may still be on its way, so retry with backoff. */
  unknownKind: boolean;
  /** The YAML text that was compiled (diagnostic locations point into it; `kgraph ui` shows it). */
  source?: SourceFile;
}

/** An accepted compile shared by every Graph with the same spec (see `GraphCompiler`). */
interface SharedCompile {
  root: WeakRef<CompiledFrame>;
  rest: Omit<CompiledGraph, 'root' | 'name' | 'namespace' | 'file'>;
}

/**
 * Compiles Graph objects against a live cluster's schemas. `invalidate()` after CRD changes.
 *
 * Graphs with the same spec (one Graph applied to many namespaces, stamped copies) share one compiled
 * graph: the compile reads nothing of the Graph but its spec (and its name and namespace, which only
 * label the result), so an accepted result is kept by the spec's hash and handed to the next Graph
 * with that spec as a copy that differs only in name, namespace and file — no YAML parse, no type
 * check, one model in memory. The cache holds the shared model weakly: it lives as long as a Graph
 * uses it. Rejected compiles are never shared (their diagnostics name the Graph).
 */
export class GraphCompiler {
  private readonly live: KubeLive;
  private readonly shared = new Map<string, SharedCompile>();
  private readonly collected = new FinalizationRegistry<string>((key) => {
    if (this.shared.get(key)?.root.deref() === undefined) this.shared.delete(key);
  });
  /** Compiles answered from the shared cache (tests, benchmarks). */
  sharedHits = 0;

  private readonly share: boolean;

  /**
   * `share`: answer Graphs of a spec already compiled from the cache — without `source` and with no
   * diagnostics (an accepted compile's warnings name the first Graph): for the Graph reconciler, which
   * needs neither; `kgraph ui` shows both and compiles every Graph itself. `slim`: keep only the
   * schemas of the OpenAPI documents, without descriptions (OpenApiOptions.slim), for a long-running
   * compiler whose results carry no schema text: the Graph and the RGD controller (a generated CRD's
   * status schema comes from CEL types, which carry no descriptions; test/integration/rgd/memory.test.ts).
   */
  constructor(client: RestClient, opts: { share?: boolean; slim?: boolean } = {}) {
    this.live = kubeLiveFetcher(client, client.server, {
      cacheDir: false,
      ...(opts.slim ? { slim: true } : {}),
    });
    this.share = opts.share ?? false;
  }

  invalidate(): void {
    this.live.invalidate();
    this.shared.clear();
  }

  async compile(graph: Record<string, unknown>): Promise<CompileOutcome> {
    if (!this.share) return this.compileOne(graph);
    const meta = (graph.metadata ?? {}) as { name?: unknown; namespace?: unknown };
    const name = String(meta.name ?? '');
    const namespace = typeof meta.namespace === 'string' ? meta.namespace : undefined;
    const key = createHash('sha256')
      .update(`${String(graph.apiVersion)}\0${JSON.stringify(graph.spec ?? null)}`)
      .digest('hex');
    const hit = this.shared.get(key);
    const root = hit?.root.deref();
    if (hit && root) {
      this.sharedHits += 1;
      const file =
        namespace === undefined
          ? `${String(graph.kind)} ${name}`
          : `${String(graph.kind)} ${namespace}/${name}`;
      const compiled: CompiledGraph = { ...hit.rest, root, name, file };
      if (namespace !== undefined) compiled.namespace = namespace;
      return { accepted: true, diagnostics: [], compiled, unknownKind: false };
    }
    const outcome = await this.compileOne(graph);
    if (this.share && outcome.accepted && outcome.compiled && !outcome.unknownKind) {
      const { root: r, name: _n, namespace: _ns, file: _f, ...rest } = outcome.compiled;
      this.shared.set(key, { root: new WeakRef(r), rest });
      this.collected.register(r, key);
    }
    return outcome;
  }

  private async compileOne(graph: Record<string, unknown>): Promise<CompileOutcome> {
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
    const unknownKind = diagnostics.some((d) => d.severity === 'error' && d.code === 'KG3001');
    // The kind may be a CRD whose OpenAPI the API server has not published yet (it lags Established, and
    // the CRD event that invalidated the documents may have come before it): the retry must fetch them
    // again, or it answers from the documents that lacked the kind until some other CRD changes.
    if (unknownKind) this.live.invalidate();
    return {
      accepted: result.accepted && result.graph !== undefined,
      diagnostics,
      compiled: result.graph,
      unknownKind,
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

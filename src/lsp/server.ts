/**
 * `kgraph lsp`: a language server for kro YAML over any message streams (stdio from the command).
 * Each open document is compiled as `kgraph validate` compiles a file (./analysis.ts), debounced on
 * change; the features read the latest analysis, and the latest one whose YAML parsed while the text
 * is half typed.
 */
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import {
  type CodeAction,
  CodeActionKind,
  type Connection,
  createConnection,
  DiagnosticSeverity,
  type InitializeResult,
  type Location,
  type Diagnostic as LspDiagnostic,
  MarkupKind,
  type Range,
  StreamMessageReader,
  StreamMessageWriter,
  TextDocumentSyncKind,
  TextDocuments,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from '../diag/diagnostic.ts';
import { type Analysis, analyse, graphAt, parseText } from './analysis.ts';
import { fixesFor } from './codeActions.ts';
import { complete, type FeatureContext, fieldsBefore } from './completion.ts';
import { hoverAt } from './hover.ts';
import { idRange, nodeNamedAt, referencesTo } from './navigation.ts';
import { type LiveSchemas, SchemaSet } from './schemas.ts';
import { allNodes } from './scope.ts';
import { documentSymbols } from './symbols.ts';
import { linesOf } from './yamlPath.ts';

export interface LspOptions {
  input: Readable;
  output: Writable;
  crdFiles?: readonly string[];
  live?: LiveSchemas;
  /** Re-read the live cluster's schemas this often (ms); 0 = only on `kgraph/refreshSchemas`. */
  liveRefreshMs?: number;
  kroCompat?: boolean;
  /** Quiet time after an edit before the document is compiled again (ms). */
  debounceMs?: number;
  /** Offline bundle override (tests). */
  bundle?: string | false;
}

interface DocState {
  analysis: Analysis;
  /** The latest analysis whose YAML parsed. */
  parsed: Analysis;
  timer?: NodeJS.Timeout;
  /** Bumped on each change; a compile that finishes after a newer change is dropped. */
  generation: number;
}

const SEVERITY = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
} as const;

export function startLanguageServer(options: LspOptions): Connection {
  const connection = createConnection(
    new StreamMessageReader(options.input),
    new StreamMessageWriter(options.output),
  );
  const documents = new TextDocuments(TextDocument);
  const schemas = new SchemaSet({
    ...(options.crdFiles ? { crdFiles: options.crdFiles } : {}),
    ...(options.live ? { live: options.live } : {}),
    ...(options.bundle !== undefined ? { bundle: options.bundle } : {}),
  });
  const compiler = new DocumentCompiler(connection, documents, schemas, options);
  serveLifecycle(connection, documents, compiler, options);
  serveFeatures(connection, compiler);
  documents.listen(connection);
  connection.listen();
  return connection;
}

/** The feature context of a document, with the document itself for position arithmetic. */
interface DocumentContext {
  ctx: FeatureContext;
  doc: TextDocument;
}

/** Compiles open documents (debounced on change, newest edit wins) and publishes their diagnostics. */
class DocumentCompiler {
  private readonly states = new Map<string, DocState>();
  private readonly debounceMs: number;

  constructor(
    private readonly connection: Connection,
    private readonly documents: TextDocuments<TextDocument>,
    readonly schemas: SchemaSet,
    private readonly options: LspOptions,
  ) {
    this.debounceMs = options.debounceMs ?? 150;
  }

  async compile(doc: TextDocument): Promise<void> {
    const { states, schemas } = this;
    const state = states.get(doc.uri);
    const generation = (state?.generation ?? 0) + 1;
    if (state) state.generation = generation;
    const text = doc.getText();
    const name = doc.uri.startsWith('file:') ? fileURLToPath(doc.uri) : doc.uri;
    const pre = parseText(name, text);
    if (schemas.live) {
      try {
        await schemas.prepare(pre.apiVersions, pre.crdObjects);
      } catch (err) {
        this.connection.console.warn(
          `kgraph: live schemas: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
    }
    const current = states.get(doc.uri);
    if (current && current.generation !== generation) return;
    const analysis = analyse(name, text, schemas, { kroCompat: this.options.kroCompat !== false }, pre);
    states.set(doc.uri, {
      analysis,
      parsed: analysis.parsed || !current ? analysis : current.parsed,
      generation,
    });
    void this.connection.sendDiagnostics({
      uri: doc.uri,
      version: doc.version,
      diagnostics: analysis.diagnostics.map((d) => toLspDiagnostic(d, analysis, doc)),
    });
  }

  /** After an edit: compile once the document has been quiet for the debounce time. */
  schedule(doc: TextDocument): void {
    const state = this.states.get(doc.uri);
    if (!state) {
      void this.compile(doc);
      return;
    }
    state.generation++;
    if (state.timer) clearTimeout(state.timer);
    state.timer = setTimeout(() => {
      state.timer = undefined;
      const latest = this.documents.get(doc.uri);
      if (latest) void this.compile(latest);
    }, this.debounceMs);
  }

  close(uri: string): void {
    const s = this.states.get(uri);
    if (s?.timer) clearTimeout(s.timer);
    this.states.delete(uri);
    void this.connection.sendDiagnostics({ uri, diagnostics: [] });
  }

  /** Re-reads the live schemas and compiles every open document against them. */
  refreshAll(): void {
    this.schemas.refresh();
    for (const doc of this.documents.all()) void this.compile(doc);
  }

  stop(): void {
    for (const s of this.states.values()) if (s.timer) clearTimeout(s.timer);
  }

  /** The feature context of a document; `fresh` compiles pending edits first (hover, navigation). */
  async contextOf(uri: string, fresh: boolean): Promise<DocumentContext | undefined> {
    const doc = this.documents.get(uri);
    if (!doc) return undefined;
    let state = this.states.get(uri);
    if (!state || (fresh && state.analysis.text !== doc.getText())) {
      if (state?.timer) clearTimeout(state.timer);
      await this.compile(doc);
      state = this.states.get(uri);
    }
    if (!state) return undefined;
    const text = doc.getText();
    return {
      doc,
      ctx: {
        analysis: state.analysis.text === text ? state.analysis : { ...state.analysis, text },
        parsed: state.parsed,
        schemas: this.schemas,
        lines: linesOf(text),
      },
    };
  }
}

function rangeOf(doc: TextDocument, start: number, end: number): Range {
  return { start: doc.positionAt(start), end: doc.positionAt(end) };
}

/** A compiler diagnostic at its exact range, with the node it belongs to as related information. */
function toLspDiagnostic(d: Diagnostic, analysis: Analysis, doc: TextDocument): LspDiagnostic {
  const loc = d.location;
  let range: Range;
  if (loc?.offset !== undefined) range = rangeOf(doc, loc.offset, loc.offset + Math.max(loc.length ?? 0, 1));
  else if (loc?.line !== undefined) {
    const start = { line: loc.line - 1, character: (loc.column ?? 1) - 1 };
    range = { start, end: { line: loc.line - 1, character: Number.MAX_SAFE_INTEGER } };
  } else range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  const out: LspDiagnostic = {
    range,
    severity: SEVERITY[d.severity],
    code: d.code,
    source: 'kgraph',
    message: d.hint ? `${d.message}\n${d.hint}` : d.message,
  };
  if (d.node !== undefined && loc?.offset !== undefined) {
    const graph = graphAt(analysis, loc.offset);
    const node = allNodes(graph).find((n) => n.path === d.node);
    const r = node ? idRange(analysis.text, node) : undefined;
    if (node && r)
      out.relatedInformation = [
        { location: { uri: doc.uri, range: rangeOf(doc, r.start, r.end) }, message: `node ${node.path}` },
      ];
  }
  return out;
}

/** Initialize, document sync, the live-schema refresh and shutdown. */
function serveLifecycle(
  connection: Connection,
  documents: TextDocuments<TextDocument>,
  compiler: DocumentCompiler,
  options: LspOptions,
): void {
  connection.onInitialize(
    (): InitializeResult => ({
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        completionProvider: { triggerCharacters: ['.', '{', ' ', ':'] },
        hoverProvider: true,
        definitionProvider: true,
        referencesProvider: true,
        documentSymbolProvider: true,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
      },
      serverInfo: { name: 'kgraph' },
    }),
  );
  connection.onInitialized(() => {
    compiler.schemas.resolverFor([]);
    for (const d of compiler.schemas.diagnostics)
      connection.console.warn(`kgraph: ${d.location?.file ?? 'CRD file'}: ${d.message} [${d.code}]`);
  });
  documents.onDidChangeContent((e) => compiler.schedule(e.document));
  documents.onDidClose((e) => compiler.close(e.document.uri));
  connection.onNotification('kgraph/refreshSchemas', () => compiler.refreshAll());
  let refresher: NodeJS.Timeout | undefined;
  const refreshMs = options.liveRefreshMs ?? 30_000;
  if (options.live && refreshMs > 0) {
    refresher = setInterval(() => compiler.refreshAll(), refreshMs);
    refresher.unref();
  }
  connection.onShutdown(() => {
    if (refresher) clearInterval(refresher);
    compiler.stop();
  });
}

/** Completion, hover, definition, references, symbols and quick fixes over the latest analysis. */
function serveFeatures(connection: Connection, compiler: DocumentCompiler): void {
  connection.onCompletion(async (p) => {
    const c = await compiler.contextOf(p.textDocument.uri, false);
    if (!c) return [];
    return complete(c.ctx, c.doc.offsetAt(p.position), p.position.line, p.position.character);
  });
  connection.onHover(async (p) => {
    const c = await compiler.contextOf(p.textDocument.uri, true);
    if (!c) return null;
    const h = hoverAt(c.ctx, c.doc.offsetAt(p.position), p.position.line);
    if (!h) return null;
    return {
      contents: { kind: MarkupKind.Markdown, value: h.markdown },
      range: rangeOf(c.doc, h.start, h.end),
    };
  });
  connection.onDefinition(async (p): Promise<Location | null> => {
    const c = await compiler.contextOf(p.textDocument.uri, true);
    if (!c) return null;
    const n = nodeNamedAt(c.ctx, c.doc.offsetAt(p.position));
    const r = n ? idRange(c.ctx.analysis.text, n) : undefined;
    return r ? { uri: c.doc.uri, range: rangeOf(c.doc, r.start, r.end) } : null;
  });
  connection.onReferences(async (p): Promise<Location[]> => {
    const c = await compiler.contextOf(p.textDocument.uri, true);
    if (!c) return [];
    const n = nodeNamedAt(c.ctx, c.doc.offsetAt(p.position));
    if (!n) return [];
    const refs = referencesTo(c.ctx, n);
    const decl = p.context.includeDeclaration ? idRange(c.ctx.analysis.text, n) : undefined;
    return [...(decl ? [decl] : []), ...refs].map((r) => ({
      uri: c.doc.uri,
      range: rangeOf(c.doc, r.start, r.end),
    }));
  });
  connection.onDocumentSymbol(async (p) => {
    const c = await compiler.contextOf(p.textDocument.uri, true);
    if (!c) return [];
    return documentSymbols(c.ctx.parsed, (s, e) => rangeOf(c.doc, s, e));
  });
  connection.onCodeAction(async (p): Promise<CodeAction[]> => {
    const c = await compiler.contextOf(p.textDocument.uri, true);
    return c ? quickFixes(c, p.context.diagnostics) : [];
  });
}

/** Our suggestions ("did you mean", quote a flow-collection `${…}`) for the editor's kgraph diagnostics. */
function quickFixes({ doc, ctx }: DocumentContext, diagnostics: readonly LspDiagnostic[]): CodeAction[] {
  const text = doc.getText();
  const out: CodeAction[] = [];
  for (const d of diagnostics) {
    if (d.source !== 'kgraph') continue;
    const fixes = fixesFor(
      text,
      {
        code: typeof d.code === 'string' ? d.code : undefined,
        message: typeof d.message === 'string' ? d.message : d.message.value,
        start: doc.offsetAt(d.range.start),
        end: doc.offsetAt(d.range.end),
      },
      (offset) => fieldsBefore(ctx, offset),
    );
    for (const f of fixes)
      out.push({
        title: f.title,
        kind: CodeActionKind.QuickFix,
        diagnostics: [d],
        isPreferred: true,
        edit: {
          changes: {
            [doc.uri]: f.edits.map((e) => ({ range: rangeOf(doc, e.start, e.end), newText: e.text })),
          },
        },
      });
  }
  return out;
}

/**
 * One editor document compiled as `kgraph validate` compiles a file: every YAML document of it
 * (Graphs, kro and krop RGDs; CRDs among them become schema sources; other manifests are left alone,
 * a multi-document file mixes them), with the diagnostics located in the text.
 */
import type { Diagnostic } from '../diag/diagnostic.ts';
import { GraphCode } from '../graph/codes.ts';
import { type CompileResult, compileDocument, sourceKindOf } from '../graph/compile.ts';
import { isCrdDocument } from '../graph/crdKinds.ts';
import type { CompiledGraph, JsonValue } from '../graph/model.ts';
import { typecheckGraph } from '../graph/typecheck.ts';
import { parseYamlFile, toJson, type YDocument, type YNode } from '../graph/yamlTree.ts';
import { IN_DOCUMENT, type SchemaSet } from './schemas.ts';

export interface AnalysedDocument {
  doc: YDocument;
  /** Present for Graphs and RGDs. */
  result?: CompileResult;
}

export interface Analysis {
  name: string;
  text: string;
  documents: AnalysedDocument[];
  /** CRDs defined in the text (schema sources for its documents). */
  crdObjects: JsonValue[];
  /** Every diagnostic of the text: YAML syntax, compile results, CRD problems. */
  diagnostics: Diagnostic[];
  /** False when the YAML did not parse (editors then keep the previous analysis for completion). */
  parsed: boolean;
}

export interface AnalyseOptions {
  kroCompat?: boolean;
}

/** Splits the text into documents and finds its CRDs and literal apiVersions (what a live source must load). */
export function parseText(name: string, text: string) {
  const parsed = parseYamlFile(name, text);
  const crdObjects: JsonValue[] = [];
  const apiVersions = new Set<string>();
  for (const doc of parsed.documents) {
    // Only a CRD is turned into a plain value (the other documents are compiled from the tree).
    const root = doc.root;
    if (root?.t === 'map' && scalarOf(root, 'kind') === 'CustomResourceDefinition') {
      const json = toJson(root);
      if (isCrdDocument(json)) crdObjects.push(json);
    }
    collectApiVersions(doc.root, apiVersions);
  }
  return { parsed, crdObjects, apiVersions: [...apiVersions] };
}

/** Compiles every Graph and RGD of a text. Synchronous: live schemas must be prepared first. */
export function analyse(
  name: string,
  text: string,
  schemas: SchemaSet,
  options: AnalyseOptions = {},
  pre: ReturnType<typeof parseText> = parseText(name, text),
): Analysis {
  const { parsed, crdObjects } = pre;
  const resolver = schemas.resolverFor(crdObjects);
  const diagnostics: Diagnostic[] = [...parsed.diagnostics];
  const documents: AnalysedDocument[] = [];
  for (const doc of parsed.documents) {
    const root = doc.root;
    const apiVersion = root?.t === 'map' ? scalarOf(root, 'apiVersion') : undefined;
    const kind = root?.t === 'map' ? scalarOf(root, 'kind') : undefined;
    if (sourceKindOf(apiVersion, kind) === undefined) {
      documents.push({ doc });
      continue;
    }
    let result: CompileResult;
    try {
      result = compileDocument(doc, {
        resolver,
        typecheck: typecheckGraph,
        kroCompat: options.kroCompat !== false,
      });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      result = {
        object: { apiVersion: apiVersion ?? '', kind: kind ?? '', name: '' },
        diagnostics: [
          {
            severity: 'error',
            code: GraphCode.InternalFailure,
            message: `the compiler failed on this document: ${message}`,
            location: doc.source.location(root?.pos.offset ?? 0, 1),
          },
        ],
        accepted: false,
      };
    }
    diagnostics.push(...result.diagnostics);
    documents.push({ doc, result });
  }
  // Problems with `--crd` files are the server's to log; those of CRDs in this text are reported on it.
  if (crdObjects.length > 0)
    diagnostics.push(...schemas.diagnostics.filter((d) => d.location?.file === IN_DOCUMENT));
  return { name, text, documents, crdObjects, diagnostics, parsed: parsed.documents.length > 0 };
}

/** The analysed document that holds a text offset. */
export function documentAt(analysis: Analysis, offset: number): AnalysedDocument | undefined {
  let best: AnalysedDocument | undefined;
  for (const d of analysis.documents) {
    const start = d.doc.root?.pos.offset ?? 0;
    if (start <= offset + 1) best = d;
  }
  return best ?? analysis.documents[0];
}

/** The compiled graph of the document at an offset. */
export function graphAt(analysis: Analysis, offset: number): CompiledGraph | undefined {
  return documentAt(analysis, offset)?.result?.graph;
}

function scalarOf(root: YNode & { t: 'map' }, key: string): string | undefined {
  const e = root.entries.find((x) => x.key === key);
  return e?.value.t === 'scalar' && typeof e.value.value === 'string' ? e.value.value : undefined;
}

function collectApiVersions(n: YNode | undefined, out: Set<string>): void {
  if (!n) return;
  if (n.t === 'seq') for (const i of n.items) collectApiVersions(i, out);
  else if (n.t === 'map')
    for (const e of n.entries) {
      if (e.key === 'apiVersion' && e.value.t === 'scalar' && typeof e.value.value === 'string') {
        if (!e.value.value.includes('${')) out.add(e.value.value);
      } else collectApiVersions(e.value, out);
    }
}

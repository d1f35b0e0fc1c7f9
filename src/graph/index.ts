/**
 * The compiler's public surface: manifests → validated, typed DAG (model.ts) with diagnostics.
 *
 *   const [result] = compileYaml('graph.yaml', text, { resolver });
 *   if (result.accepted) engine.run(result.graph);
 */
import { type CompileOptions, type CompileResult, compileDocument } from './compile.ts';
import { parseYamlFile } from './yamlTree.ts';

export { celTypeToSchema } from '../schema/crd/celTypeSchema.ts';
export { GraphCode, type GraphCodeValue } from './codes.ts';
export {
  type CompileOptions,
  type CompileResult,
  compileDocument,
  GRAPH_RESERVED,
  RGD_RESERVED,
  sourceKindOf,
} from './compile.ts';
export { analyseDag, type DagInput, type DagResult } from './dag.ts';
export { toDot, toJsonGraph, toMermaid, toSvg } from './draw.ts';
export { formatDiagnostic, formatTextReport, type ObjectReport, toJsonReport } from './format.ts';
export { chainResolvers, type KindInfo, type KindResolver, splitApiVersion, tableResolver } from './kinds.ts';
export * from './model.ts';
export { type InferredStatusType, statusFieldTypes, typecheckGraph } from './typecheck.ts';
export { type ValidateOptions, type ValidateResult, validatePaths, validatePathsLive } from './validate.ts';
export { parseYamlFile, SourceFile, type YDocument, type YNode } from './yamlTree.ts';

/**
 * Compiles every document of a YAML text. YAML syntax errors are returned as a result without a
 * graph (object fields empty) so callers see them; other kinds of documents are reported as KG2003.
 */
export function compileYaml(file: string, text: string, options: CompileOptions = {}): CompileResult[] {
  const parsed = parseYamlFile(file, text);
  const results = parsed.documents.map((doc) => compileDocument(doc, options));
  const syntax = parsed.diagnostics.filter((d) => d.severity === 'error');
  if (syntax.length > 0) {
    results.unshift({ object: { apiVersion: '', kind: '', name: '' }, diagnostics: syntax, accepted: false });
  }
  return results;
}

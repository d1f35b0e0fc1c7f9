/**
 * The one YAML writer for everything kgraph prints or writes (synth, render, crd, graph, charts).
 *
 * The `yaml` package writes YAML 1.2, where `yes`, `no`, `on`, `off`, `y`, `n`, `0b101`, `1_000`, `1:20`
 * and `2001-12-14` are plain strings and stay unquoted. Kubernetes tooling reads YAML 1.1
 * (sigs.k8s.io/yaml over go-yaml), where they are booleans, integers, sexagesimal numbers and timestamps,
 * so a ConfigMap value `yes` becomes `true` and the object is refused ("cannot unmarshal bool into Go
 * struct field ConfigMap.data of type string"). Every string scalar (values and keys) that a YAML 1.1 or
 * a YAML 1.2 reader would take for anything but that string is therefore double-quoted.
 */
import YAML, { isScalar } from 'yaml';

/** The merge key and the value key are special in YAML 1.1 even though they resolve to strings. */
const SPECIAL_11 = new Set(['<<', '=']);
const verdicts = new Map<string, boolean>();

/** Whether a plain (unquoted) scalar with this text would be read as something other than this string. */
export function isAmbiguousPlainScalar(text: string): boolean {
  const known = verdicts.get(text);
  if (known !== undefined) return known;
  const ambiguous = SPECIAL_11.has(text) || !readsAsString(text, '1.1') || !readsAsString(text, '1.2');
  if (verdicts.size > 10_000) verdicts.clear();
  verdicts.set(text, ambiguous);
  return ambiguous;
}

function readsAsString(text: string, version: '1.1' | '1.2'): boolean {
  if (text.includes('\n')) return true; // never written as a plain one-line scalar
  try {
    const doc = YAML.parseDocument(text, { version });
    return doc.errors.length === 0 && isScalar(doc.contents) && doc.contents.value === text;
  } catch {
    return false;
  }
}

export interface WriteYamlOptions {
  /** Fold long lines at this width; 0 (default) never folds. */
  readonly lineWidth?: number;
}

/** One YAML document (no `---`), ending in a newline. Repeated objects are written out, never aliased. */
export function writeYaml(value: unknown, opts: WriteYamlOptions = {}): string {
  const doc = new YAML.Document(value, { aliasDuplicateObjects: false });
  YAML.visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && isAmbiguousPlainScalar(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString({ lineWidth: opts.lineWidth ?? 0 });
}

/** Several documents separated by `---`. */
export function writeYamlDocuments(values: readonly unknown[], opts: WriteYamlOptions = {}): string {
  return values.map((v) => writeYaml(v, opts)).join('---\n');
}

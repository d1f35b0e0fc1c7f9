/**
 * The hash that decides whether an RGD change is a new GraphRevision (design/rgd.md §19.5), computed as kro
 * computes its own: over a normalised spec, so edits that change nothing the graph means issue nothing.
 *
 *   - object keys are sorted (YAML key order is not meaning);
 *   - resources are sorted by id, `readyWhen` and `includeWhen` are sorted (their order is not meaning);
 *     `forEach` keeps its order (it is the order collections expand in);
 *   - a missing `schema.group` is `kro.run`, a missing `schema.scope` is `Namespaced`, and absent lists and
 *     maps equal empty ones.
 *
 * Annotations (`kro.run/allow-breaking-changes` among them) and labels are metadata, not spec: not hashed.
 * FNV-64a over the canonical JSON, 16 hex digits, like kro's; the value is kgraph's (its JSON differs from
 * Go's), and revisions are compared by re-hashing their snapshots, never by reading kro's label. Pure.
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

export function fnv64a(text: string): string {
  let h = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= BigInt(byte);
    h = (h * FNV_PRIME) & MASK;
  }
  return h.toString(16).padStart(16, '0');
}

/** JSON with object keys sorted at every level (arrays keep their order). */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function sortedStrings(v: unknown): Json {
  if (!Array.isArray(v)) return [];
  return [...v].map(String).sort();
}

function normalisedResource(r: unknown): unknown {
  if (!isObject(r)) return r;
  return {
    ...r,
    readyWhen: sortedStrings(r.readyWhen),
    includeWhen: sortedStrings(r.includeWhen),
    forEach: Array.isArray(r.forEach) ? r.forEach : [],
  };
}

/** The spec as the hash sees it. */
export function normaliseRgdSpec(spec: unknown): unknown {
  const s = isObject(spec) ? spec : {};
  const out: Record<string, unknown> = { ...s };
  if (isObject(s.schema)) {
    const schema: Record<string, unknown> = {
      ...s.schema,
      group: s.schema.group ?? 'kro.run',
      scope: s.schema.scope ?? 'Namespaced',
      additionalPrinterColumns: s.schema.additionalPrinterColumns ?? [],
    };
    if (isObject(s.schema.metadata)) {
      schema.metadata = {
        ...s.schema.metadata,
        labels: s.schema.metadata.labels ?? {},
        annotations: s.schema.metadata.annotations ?? {},
      };
    }
    out.schema = schema;
  }
  const resources = Array.isArray(s.resources) ? s.resources.map(normalisedResource) : [];
  out.resources = resources.sort((a, b) => {
    const ia = isObject(a) ? String(a.id ?? '') : '';
    const ib = isObject(b) ? String(b.id ?? '') : '';
    return ia < ib ? -1 : ia > ib ? 1 : 0;
  });
  return out;
}

/** The normalised spec hash of an RGD spec (or of a GraphRevision's `spec.snapshot.spec`). */
export function rgdSpecHash(spec: unknown): string {
  return fnv64a(canonicalJson(normaliseRgdSpec(spec)));
}

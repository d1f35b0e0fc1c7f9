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
import { fnv64a as fnv64aBytes } from '../../cel/lib/kro-hash.ts';
import { isRecord } from '../../diag/record.ts';
import { canonicalJson } from '../core/canonicalJson.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** FNV-64a of the text's UTF-8 bytes as 16 hex digits (the digest kro's `hash.fnv64a` gives as bytes). */
export function fnv64a(text: string): string {
  return Buffer.from(fnv64aBytes(text)).toString('hex');
}

function sortedStrings(v: unknown): Json {
  if (!Array.isArray(v)) return [];
  return [...v].map(String).sort();
}

function normalisedResource(r: unknown): unknown {
  if (!isRecord(r)) return r;
  return {
    ...r,
    readyWhen: sortedStrings(r.readyWhen),
    includeWhen: sortedStrings(r.includeWhen),
    forEach: Array.isArray(r.forEach) ? r.forEach : [],
  };
}

/** The spec as the hash sees it. */
export function normaliseRgdSpec(spec: unknown): unknown {
  const s = isRecord(spec) ? spec : {};
  const out: Record<string, unknown> = { ...s };
  if (isRecord(s.schema)) {
    const schema: Record<string, unknown> = {
      ...s.schema,
      group: s.schema.group ?? 'kro.run',
      scope: s.schema.scope ?? 'Namespaced',
      additionalPrinterColumns: s.schema.additionalPrinterColumns ?? [],
    };
    if (isRecord(s.schema.metadata)) {
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
    const ia = isRecord(a) ? String(a.id ?? '') : '';
    const ib = isRecord(b) ? String(b.id ?? '') : '';
    return ia < ib ? -1 : ia > ib ? 1 : 0;
  });
  return out;
}

/** The normalised spec hash of an RGD spec (or of a GraphRevision's `spec.snapshot.spec`). */
export function rgdSpecHash(spec: unknown): string {
  return fnv64a(canonicalJson(normaliseRgdSpec(spec)));
}

/** Shared helpers for the compiler tests: the standard offline schema sources. */
import { builtinKindResolver } from '../../../src/graph/builtinKinds.ts';
import { chainResolvers, type KindResolver } from '../../../src/graph/kinds.ts';
import { createSchemaResolver, toKindLookup } from '../../../src/schema/sources/resolver.ts';

let cached: KindResolver | undefined;

/** The committed Kubernetes bundle plus kgraph's own kinds (as `kgraph validate` uses them). */
export function offlineResolver(): KindResolver {
  cached ??= chainResolvers([toKindLookup(createSchemaResolver().resolver), builtinKindResolver()]);
  return cached;
}

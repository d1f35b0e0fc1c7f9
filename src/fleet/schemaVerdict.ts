/**
 * The schema half of `kgraph fleet diff` (design/rgd.md §19.9): the generated CRD of the old and the new
 * spec compared with the same check the RGD controller runs before it updates a CRD (design/rgd.md §19.4,
 * schema/crd/compat.ts), and whether the controller would refuse the update (a breaking change without
 * `kro.run/allow-breaking-changes: "true"`). Pure.
 */
import type { CompiledGraph } from '../graph/model.ts';
import { statusFieldTypes } from '../graph/typecheck.ts';
import { applyDefaults } from '../runtime/defaults.ts';
import { allowsBreakingChanges, compareCrds, type SchemaChange } from '../schema/crd/compat.ts';
import { generateCrd } from '../schema/crd/generate.ts';
import type { OpenAPISchema } from '../schema/openapi.ts';
import { validateAgainst } from './validateSpec.ts';

export interface SchemaVerdict {
  /** `compatible`: nothing breaking; `breaking-allowed`: breaking, let through by the annotation; `refused`: the controller keeps the old CRD. */
  verdict: 'compatible' | 'breaking-allowed' | 'refused';
  breaking: SchemaChange[];
  nonBreaking: SchemaChange[];
}

/** The new spec's instance schema, for defaults and validation. */
export interface NewSchema {
  specSchema: OpenAPISchema;
}

/** Compares the CRDs the two specs generate. `newRgd` carries the annotations (the opt-in). */
export function schemaVerdict(
  oldRgd: Record<string, unknown>,
  oldGraph: CompiledGraph,
  newRgd: Record<string, unknown>,
  newGraph: CompiledGraph,
): SchemaVerdict & NewSchema {
  const before = generateCrd(oldRgd, { statusTypes: statusFieldTypes(oldGraph) });
  const after = generateCrd(newRgd, { statusTypes: statusFieldTypes(newGraph) });
  const report = compareCrds(before.crd, after.crd);
  const verdict =
    report.breaking.length === 0
      ? 'compatible'
      : allowsBreakingChanges(newRgd)
        ? 'breaking-allowed'
        : 'refused';
  return {
    verdict,
    breaking: report.breaking,
    nonBreaking: report.nonBreaking,
    specSchema: after.specSchema,
  };
}

/** The instance as the API server serves it once the new CRD is in place: the new defaults applied. */
export function withNewDefaults(
  instance: Record<string, unknown>,
  specSchema: OpenAPISchema,
): Record<string, unknown> {
  return { ...instance, spec: applyDefaults(instance.spec ?? {}, specSchema) };
}

/** The instance's spec against the new schema (after the new defaults). */
export function instanceProblems(instance: Record<string, unknown>, specSchema: OpenAPISchema): string[] {
  return validateAgainst(instance.spec ?? {}, specSchema);
}

/**
 * Schema fragments shared by the Graph CRD (`crd.ts`) and the RGD CRD (`rgd/crd.ts`): both describe
 * nodes that may reference an existing object and fan out with `forEach`, and both must admit exactly
 * what the compiler later checks with located diagnostics, so the fragments live in one place.
 */

export const freeObject = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
export const stringList = { type: 'array', items: { type: 'string' } };

/** `forEach`: a list of one-entry maps from iterator name to a CEL expression. */
export const forEachSchema = {
  type: 'array',
  items: {
    type: 'object',
    minProperties: 1,
    maxProperties: 1,
    additionalProperties: { type: 'string' },
  },
};

/**
 * A reference to an existing object: apiVersion, kind and a name or selector (a literal
 * LabelSelector, or one CEL expression yielding one). `nameMinLength` is the Graph API's stricter
 * rule; kro's RGD `externalRef` does not have it.
 */
export function objectRefSchema(opts: { nameMinLength?: number } = {}): Record<string, unknown> {
  const name: Record<string, unknown> = { type: 'string' };
  if (opts.nameMinLength !== undefined) name.minLength = opts.nameMinLength;
  return {
    type: 'object',
    required: ['apiVersion', 'kind', 'metadata'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: {
        type: 'object',
        properties: {
          name,
          namespace: { type: 'string' },
          selector: { 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    },
  };
}

/** What differs between the kro.run CRDs kgraph installs (the Graph and the RGD). */
export interface KroCrdParts {
  name: string;
  scope: 'Namespaced' | 'Cluster';
  names: Record<string, unknown>;
  printerColumns: Record<string, unknown>[];
  /** The `spec` schema; `spec` is required. */
  spec: Record<string, unknown>;
  status: Record<string, unknown>;
  /** @default 'kro.run' */
  group?: string;
  /** Fields a list may select on (`--field-selector`), e.g. `.spec.snapshot.name`. */
  selectableFields?: string[];
}

/** A `kro.run` (or `internal.kro.run`) CRD, version v1alpha1 with a status subresource, labelled as part of kgraph. */
export function kroCrd(parts: KroCrdParts): {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels: Record<string, string> };
  spec: Record<string, unknown>;
} {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: parts.name, labels: { 'app.kubernetes.io/part-of': 'kgraph' } },
    spec: {
      group: parts.group ?? 'kro.run',
      scope: parts.scope,
      names: parts.names,
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          subresources: { status: {} },
          ...(parts.selectableFields
            ? { selectableFields: parts.selectableFields.map((jsonPath) => ({ jsonPath })) }
            : {}),
          additionalPrinterColumns: parts.printerColumns,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: parts.spec,
                status: parts.status,
              },
            },
          },
        },
      ],
    },
  };
}

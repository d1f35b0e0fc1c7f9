/**
 * The API group and version of kro's own kinds (`Graph`, `ResourceGraphDefinition`), named once for every layer
 * that reads or writes them (design/graph.md §2). krop's RGD group is a flavour of its own (`passes/flavor.ts`).
 */

/** The group kro's kinds belong to. */
export const KRO_GROUP = 'kro.run';

/** The group/version of kro's `Graph` and `ResourceGraphDefinition`. */
export const KRO_API_VERSION = `${KRO_GROUP}/v1alpha1` as const;

/**
 * The controller's side of the `watch` node (kro KREP-024, docs/watch-nodes.md).
 *
 * A watch is read like a selector `ref`: the engine asks the observed state for a list, the read goes
 * through the Graph's `ReadScope` (a `list` SubjectAccessReview for the Graph's ServiceAccount, in the
 * watch's namespace or cluster-wide), the informer for the kind is started on demand, and the list is
 * recorded as interest so that watch events reconcile the Graph. This file holds what is particular to
 * the node: its Graph CRD schema.
 */

/**
 * `watch`: apiVersion and kind required; the selector and namespace at the top (kro's design) or under
 * `metadata` (kro's RGD-as-Graph example). A literal LabelSelector or one CEL expression yielding one,
 * so the selector stays schemaless; the compiler checks the shape with located diagnostics.
 */
export function watchNodeSchema(): Record<string, unknown> {
  return {
    type: 'object',
    required: ['apiVersion', 'kind'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      namespace: { type: 'string' },
      selector: { 'x-kubernetes-preserve-unknown-fields': true },
      metadata: {
        type: 'object',
        properties: {
          namespace: { type: 'string' },
          selector: { 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    },
  };
}

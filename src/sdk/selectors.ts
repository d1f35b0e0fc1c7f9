/**
 * Additional selector checks (design/sdk.md §B7): a Service, PodDisruptionBudget or NetworkPolicy selector
 * built from a workload's `.out.selector` must be a subset of that workload's pod-template labels, and a
 * workload's own topology-spread selectors must select its own pods.
 */
import type { ResNode } from './build.ts';
import { SdkCode, SdkError } from './errors.ts';
import { materialize } from './materialize.ts';
import { asArr, asObj } from './validators.ts';

const WORKLOADS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob']);

function selectorOf(node: ResNode): { value: unknown; path: string } | undefined {
  const spec = asObj(node.draft.spec);
  if (!spec) return undefined;
  if (node.kind === 'Service' && node.apiVersion === 'v1')
    return { value: spec.selector, path: 'spec.selector' };
  if (node.kind === 'PodDisruptionBudget')
    return { value: asObj(spec.selector)?.matchLabels, path: 'spec.selector.matchLabels' };
  if (node.kind === 'NetworkPolicy')
    return { value: asObj(spec.podSelector)?.matchLabels, path: 'spec.podSelector.matchLabels' };
  return undefined;
}

/** Plain-text pod-template labels of a workload node. */
export function podLabelsOf(node: ResNode): Record<string, string> {
  const spec = asObj(node.draft.spec);
  const tmpl =
    node.kind === 'CronJob' ? asObj(asObj(asObj(spec?.jobTemplate)?.spec)?.template) : asObj(spec?.template);
  const v = materialize(asObj(tmpl?.metadata)?.labels, 'text').value;
  return (asObj(v) ?? {}) as Record<string, string>;
}

function subsetProblem(selector: Record<string, unknown>, labels: Record<string, string>): string[] {
  return Object.entries(selector)
    .filter(([k, v]) => labels[k] !== v)
    .map(([k, v]) => (k in labels ? `${k} (${String(v)} ≠ ${labels[k]})` : `${k} missing`));
}

/** Run at synth on every node (after context is known). */
export function checkTargetedSelector(node: ResNode): void {
  if (node.isImport) return;
  const sel = selectorOf(node);
  if (!sel || sel.value === undefined || sel.value === null) return;
  const m = materialize(sel.value, 'text');
  const selector = asObj(m.value);
  if (!selector) return;
  for (const target of m.ctx.order) {
    if (!WORKLOADS.has(target.kind) || target === node) continue;
    const bad = subsetProblem(selector, podLabelsOf(target as ResNode));
    if (bad.length > 0) {
      throw new SdkError(
        SdkCode.selectorSubsetOther,
        `${node.label}: ${sel.path} is not a subset of the pod-template labels of ${target.key}: ${bad.join(', ')}`,
        { node: node.key, path: sel.path },
      );
    }
  }
}

/** A workload's own topologySpreadConstraints selectors must select its pods. */
export function checkSpreadSelectors(
  label: string,
  key: string,
  podSpec: unknown,
  podLabels: Record<string, string>,
): void {
  asArr(asObj(podSpec)?.topologySpreadConstraints).forEach((c, i) => {
    const ml = materialize(asObj(asObj(c)?.labelSelector)?.matchLabels, 'text').value;
    const selector = asObj(ml);
    if (!selector) return;
    const bad = subsetProblem(selector, podLabels);
    if (bad.length > 0) {
      throw new SdkError(
        SdkCode.selectorSubsetOther,
        `${label}: topologySpreadConstraints[${i}].labelSelector does not select the workload's pods: ${bad.join(', ')}`,
        { node: key, path: `topologySpreadConstraints[${i}]` },
      );
    }
  });
}

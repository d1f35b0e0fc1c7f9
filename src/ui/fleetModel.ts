/**
 * The fleet panel of an RGD in `kgraph ui` (design/rgd.md §19.8): its instances grouped by the revision they
 * are reconciled at (the `kgraph.dev/revision` label), pinned ones marked, the latest, stable and target
 * revisions marked, and the RGD's GraphRollout (phase, step, counts) when there is one. Pure: the cluster
 * source hands in what its informers hold, this computes the JSON the page draws.
 */
import {
  ANNOTATION_REVISION,
  ANNOTATION_REVISION_POLICY,
  parseRevision,
  reconciledRevision,
} from '../controller/rgd/revisionPolicy.ts';
import { isRecord } from '../diag/record.ts';

/** Instances listed by name per revision; past this the panel shows the count only. */
export const MAX_LISTED = 50;

type Meta = {
  namespace?: string | undefined;
  name?: string | undefined;
  labels?: Record<string, string> | undefined;
  annotations?: Record<string, string> | undefined;
};

export interface FleetInputInstance {
  /** The entry key of the instance (the page links to it). */
  key: string;
  metadata: Meta;
  ready: 'True' | 'False' | 'Unknown';
}

export interface FleetInput {
  /** The RGD: its `status.lastIssuedRevision` is the latest revision. */
  rgd: { metadata: Meta; status?: unknown };
  instances: readonly FleetInputInstance[];
  /** The RGD's GraphRollout, when there is one (and the user may read it). */
  rollout?: { metadata: Meta; spec?: unknown; status?: unknown } | undefined;
}

export type RevisionMark = 'latest' | 'stable' | 'target';

export interface UiFleetInstance {
  key: string;
  /** `namespace/name` (or `name` for a cluster-scoped kind). */
  name: string;
  ready: 'True' | 'False' | 'Unknown';
  /** `kgraph.dev/revision-policy: Manual`: a rollout never moves it. */
  pinned: boolean;
  /** The revision it is asked to run (`kgraph.dev/revision`), when that differs from where it is now. */
  wants?: number;
}

export interface UiFleetRevision {
  /** null: not reconciled at any revision yet (no label). */
  revision: number | null;
  marks: RevisionMark[];
  count: number;
  ready: number;
  pinned: number;
  /** The first MAX_LISTED, in namespace/name order. */
  instances: UiFleetInstance[];
}

export interface UiRollout {
  name: string;
  phase: string;
  /** Zero-based index of the current step; equals `steps` once every step is done. */
  step: number;
  steps: number;
  /** The current step in words (`pause until promoted`, `batch 50% (4 in flight)`), when there is one. */
  stepText?: string;
  stableRevision?: number;
  targetRevision?: number;
  paused: boolean;
  counts: { total: number; pinned: number; governed: number; updated: number; ready: number; failed: number };
  failed: string[];
  message: string;
}

export interface UiFleet {
  total: number;
  latest?: number;
  /** Newest revision first; instances without a revision last. */
  revisions: UiFleetRevision[];
  rollout?: UiRollout;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const nameOf = (m: Meta): string => (m.namespace ? `${m.namespace}/${m.name ?? ''}` : (m.name ?? ''));

/** A rollout step in words, as `kgraph rollout status` users read the spec. */
export function stepText(step: unknown): string | undefined {
  if (!isRecord(step)) return undefined;
  if (isRecord(step.canary)) {
    const sel = isRecord(step.canary.selector) ? step.canary.selector.matchLabels : undefined;
    const labels = isRecord(sel)
      ? Object.entries(sel)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(',')
      : '';
    const ns = Array.isArray(step.canary.namespaces) ? step.canary.namespaces.join(',') : '';
    const parts = [labels ? `selector ${labels}` : '', ns ? `namespaces ${ns}` : ''].filter(Boolean);
    return `canary${parts.length > 0 ? ` (${parts.join('; ')})` : ''}`;
  }
  if (isRecord(step.pause)) {
    const d = str(step.pause.duration);
    return d ? `pause ${d}` : 'pause until promoted';
  }
  if (isRecord(step.batch)) {
    const p = num(step.batch.percent) ?? 0;
    const m = num(step.batch.maxInFlight);
    return `batch ${p}%${m !== undefined ? ` (${m} in flight)` : ''}`;
  }
  return undefined;
}

function rolloutOf(ro: NonNullable<FleetInput['rollout']>): UiRollout {
  const spec = isRecord(ro.spec) ? ro.spec : {};
  const status = isRecord(ro.status) ? ro.status : {};
  const steps = Array.isArray(spec.steps) ? spec.steps : [];
  const step = Math.min(num(status.step) ?? 0, steps.length);
  const c = isRecord(status.counts) ? status.counts : {};
  const count = (k: string): number => num(c[k]) ?? 0;
  const text = step < steps.length ? stepText(steps[step]) : undefined;
  const stable = num(status.stableRevision);
  const target = num(status.targetRevision);
  return {
    name: ro.metadata.name ?? '',
    phase: str(status.phase) ?? 'Pending',
    step,
    steps: steps.length,
    ...(text ? { stepText: text } : {}),
    ...(stable !== undefined ? { stableRevision: stable } : {}),
    ...(target !== undefined ? { targetRevision: target } : {}),
    paused: spec.paused === true,
    counts: {
      total: count('total'),
      pinned: count('pinned'),
      governed: count('governed'),
      updated: count('updated'),
      ready: count('ready'),
      failed: count('failed'),
    },
    failed: Array.isArray(status.failed)
      ? status.failed.filter((x): x is string => typeof x === 'string')
      : [],
    message: str(status.message) ?? '',
  };
}

export function fleetOf(input: FleetInput): UiFleet {
  const status = isRecord(input.rgd.status) ? input.rgd.status : {};
  const latest = num(status.lastIssuedRevision);
  const rollout = input.rollout ? rolloutOf(input.rollout) : undefined;
  const groups = new Map<number | null, UiFleetInstance[]>();
  const sorted = [...input.instances].sort((a, b) => nameOf(a.metadata).localeCompare(nameOf(b.metadata)));
  for (const i of sorted) {
    const at = reconciledRevision(i.metadata) ?? null;
    const a = i.metadata.annotations ?? {};
    const wants = parseRevision(a[ANNOTATION_REVISION]);
    const row: UiFleetInstance = {
      key: i.key,
      name: nameOf(i.metadata),
      ready: i.ready,
      pinned: a[ANNOTATION_REVISION_POLICY] === 'Manual',
      ...(wants !== undefined && wants !== at ? { wants } : {}),
    };
    const list = groups.get(at) ?? [];
    list.push(row);
    groups.set(at, list);
  }
  // The marked revisions are shown even when no instance is at them (a target nobody reached yet).
  for (const r of [latest, rollout?.stableRevision, rollout?.targetRevision])
    if (r !== undefined && !groups.has(r)) groups.set(r, []);
  const marksOf = (r: number | null): RevisionMark[] => {
    const m: RevisionMark[] = [];
    if (r === null) return m;
    if (r === latest) m.push('latest');
    if (r === rollout?.stableRevision) m.push('stable');
    if (r === rollout?.targetRevision) m.push('target');
    return m;
  };
  const revisions = [...groups.entries()]
    .sort(([a], [b]) => (a === null ? 1 : b === null ? -1 : b - a))
    .map(([revision, list]) => ({
      revision,
      marks: marksOf(revision),
      count: list.length,
      ready: list.filter((i) => i.ready === 'True').length,
      pinned: list.filter((i) => i.pinned).length,
      instances: list.slice(0, MAX_LISTED),
    }));
  return {
    total: input.instances.length,
    ...(latest !== undefined ? { latest } : {}),
    revisions,
    ...(rollout ? { rollout } : {}),
  };
}

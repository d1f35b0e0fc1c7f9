/**
 * Jobs (design/sdk.md §B6.6): a Job's pod template is immutable, so a changed Job is either
 * rerun (`kix.run/rerun: on-change`: delete and recreate) or refused. The decision
 * uses a hash of the authored spec stored on the live Job.
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '../kube/types.ts';

export const SPEC_HASH = 'kix.run/spec-hash';

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

export function jobSpecHash(job: KubeObject): string {
  return createHash('sha256')
    .update(canonical(job.spec ?? {}))
    .digest('hex')
    .slice(0, 16);
}

export type JobDecision = 'apply' | 'rerun' | 'refuse';

export function decideJob(desired: KubeObject, live: KubeObject | undefined): JobDecision {
  if (!live) return 'apply';
  const before = live.metadata.annotations?.[SPEC_HASH];
  if (before === undefined || before === jobSpecHash(desired)) return 'apply';
  return desired.metadata.annotations?.['kix.run/rerun'] === 'on-change' ? 'rerun' : 'refuse';
}

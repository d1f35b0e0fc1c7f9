/**
 * Collision-free names (design/planes.md §3.3.2, §7, §9): provider children's qualified names, liveness record
 * names, derived cluster IDs and label-safe values. Pure; golden vectors in the unit tests.
 */
import { createHash } from 'node:crypto';

const sha256hex = (s: string): string => createHash('sha256').update(s).digest('hex');

/** design/planes.md §7.2: the name limit of a kind: DNS labels (63), CronJob (52), else 253. */
export function nameLimit(kind: string): number {
  if (kind === 'Service' || kind === 'Namespace' || kind === 'StatefulSet') return 63;
  if (kind === 'CronJob') return 52;
  return 253;
}

/**
 * The hash suffix and truncation shared by kgraph's and krop's forms: `parts` are NUL-joined into the
 * hash (injective, NUL never occurs in names); `base` is the readable prefix.
 */
export function hashedName(base: string, parts: readonly string[], maxLen: number): string {
  const suffix = sha256hex(parts.join('\0')).slice(0, 12);
  let b = maxLen < 253 ? base.replaceAll('.', '-') : base;
  if (b.length + 1 + 12 > maxLen) b = b.slice(0, maxLen - 13).replace(/[-.]+$/, '');
  return `${b}-${suffix}`;
}

/** design/planes.md §7.2: the name of a provider-target child; the instance namespace is part of the hash (design/planes.md §18.1). */
export function qualifiedName(
  clusterID: string,
  instanceNamespace: string,
  instanceName: string,
  original: string,
  kind: string,
): string {
  return hashedName(
    `${clusterID}-${instanceName}-${original}`,
    [clusterID, instanceNamespace, instanceName, original],
    nameLimit(kind),
  );
}

/** design/planes.md §7.3: the liveness record of one instance in one consumer cluster. */
export function livenessRecordName(clusterID: string, instanceUID: string): string {
  return `krop-live-${sha256hex(`${clusterID}\0${instanceUID}`).slice(0, 16)}`;
}

/** design/planes.md §3.3.2: the default cluster ID, derived from the kube-system namespace UID. */
export function clusterIdFromUid(kubeSystemUID: string): string {
  return `c${sha256hex(kubeSystemUID).slice(0, 15)}`;
}

/** design/planes.md §3.3.2: an operator-supplied cluster ID. */
export const CLUSTER_ID_PATTERN = /^[a-z][a-z0-9-]{0,30}[a-z0-9]$/;

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** design/planes.md §9: a label value kgraph writes: as is when valid, else `h-` + 40 hex of its SHA-256. */
export function safeLabelValue(value: string): string {
  if (value.length <= 63 && LABEL_VALUE.test(value)) return value;
  return `h-${sha256hex(value).slice(0, 40)}`;
}

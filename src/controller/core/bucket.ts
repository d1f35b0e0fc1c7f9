/**
 * Buckets (design/sharding.md §2): every Graph and top-level RGD instance carries a fixed
 * `kgraph.dev/bucket` label, a hash of its UID modulo `BUCKET_COUNT`, and the stamp copies it onto
 * every child and nested instance, so a whole tree falls in one bucket. Replicas own buckets; adding or
 * losing a replica moves bucket ownership, never relabels an object.
 */

export const LABEL_BUCKET = 'kgraph.dev/bucket';

/** Fixed for the life of a cluster: changing it would relabel every object. */
export const BUCKET_COUNT = 1024;

/** The bucket of a UID: FNV-1a (32 bit) of its UTF-16 code units, modulo BUCKET_COUNT. */
export function bucketOf(uid: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < uid.length; i++) {
    h ^= uid.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % BUCKET_COUNT;
}

/** The bucket label's value of an object, when it has a valid one. */
export function bucketLabel(labels: Record<string, string> | undefined): string | undefined {
  const v = labels?.[LABEL_BUCKET];
  if (v === undefined || !/^\d{1,4}$/.test(v) || Number(v) >= BUCKET_COUNT) return undefined;
  return v;
}

/** `{ bucket }` of an owner carrying a valid bucket label, for the stamp; `{}` otherwise. */
export function bucketStamp(owner: { metadata: { labels?: Record<string, string> } }): { bucket?: string } {
  const bucket = bucketLabel(owner.metadata.labels);
  return bucket === undefined ? {} : { bucket };
}

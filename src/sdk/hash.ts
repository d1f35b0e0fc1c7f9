/**
 * Identity hashes: 32 characters, the first 160 bits of SHA-256 over
 * `"k8s-<kind>-<ns>-<name>" + "\0" + canonicalJSON(rawManifest)`, in Nix's base-32 alphabet.
 */
import { createHash } from 'node:crypto';
import type { Json } from './values.ts';

const ALPHABET = '0123456789abcdfghijklmnpqrsvwxyz';

/** Nix-style base 32 (least significant 5-bit group last). */
export function nixBase32(bytes: Uint8Array): string {
  const len = Math.ceil((bytes.length * 8) / 5);
  let out = '';
  for (let n = len - 1; n >= 0; n--) {
    const b = n * 5;
    const i = Math.floor(b / 8);
    const j = b % 8;
    const lo = (bytes[i] ?? 0) >> j;
    const hi = i + 1 < bytes.length ? (bytes[i + 1] ?? 0) << (8 - j) : 0;
    out += ALPHABET[(lo | hi) & 0x1f];
  }
  return out;
}

export function canonicalJson(v: Json | undefined): string {
  if (v === undefined) return 'null';
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  return `{${Object.keys(v)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`)
    .join(',')}}`;
}

export function outPathName(kind: string, namespace: string | undefined, name: string): string {
  return `k8s-${kind}-${namespace ?? ''}-${name}`;
}

export function identityHash(outPath: string, manifest: Json): string {
  const digest = createHash('sha256').update(outPath).update('\0').update(canonicalJson(manifest)).digest();
  return nixBase32(digest.subarray(0, 20));
}

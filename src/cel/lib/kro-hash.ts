import { createHash } from 'node:crypto';
import type { Environment } from '@marcbachmann/cel-js';
import type { CelLibrary } from './library.ts';
import { ensureNamespace } from './namespaces.ts';

/**
 * kro's hash library, following kro pkg/cel/library/hash.go: each function hashes the UTF-8 bytes
 * of a string and returns the raw digest as bytes (FNV-1a 64-bit: 8 bytes big-endian, as Go's
 * hash.Sum(nil); SHA-256: 32 bytes; MD5: 16 bytes).
 */

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;

export function fnv64a(s: string): Uint8Array {
  let h = FNV_OFFSET;
  for (const b of new TextEncoder().encode(s)) {
    h ^= BigInt(b);
    h = BigInt.asUintN(64, h * FNV_PRIME);
  }
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, h);
  return out;
}

function digest(algorithm: 'sha256' | 'md5', s: string): Uint8Array {
  return new Uint8Array(createHash(algorithm).update(s, 'utf8').digest());
}

export const kroHashLibrary: CelLibrary = {
  name: 'kro hash',
  install(env: Environment): void {
    const ns = ensureNamespace(env, 'hash');
    env.registerFunction(`${ns}.fnv64a(string): bytes`, (_ns: unknown, s: string) => fnv64a(s));
    env.registerFunction(`${ns}.sha256(string): bytes`, (_ns: unknown, s: string) => digest('sha256', s));
    env.registerFunction(`${ns}.md5(string): bytes`, (_ns: unknown, s: string) => digest('md5', s));
  },
};

import { createHash } from 'node:crypto';
import type { Environment } from '@marcbachmann/cel-js';
import { celError } from './errors.ts';
import type { CelLibrary } from './library.ts';
import { ensureNamespace } from './namespaces.ts';

/**
 * kro's random library, following kro pkg/cel/library/random.go (kubernetes-sigs/kro). Results must
 * be bit-identical to kro so that generated names survive a move from kro to kgraph:
 * - the seed's UTF-8 bytes are hashed once with SHA-256;
 * - seededString: character i is alphabet[(big-endian uint32 of hash[(4i) mod 32 .. +4]) mod 36]
 *   over "0123456789abcdefghijklmnopqrstuvwxyz". kro's "rehash when out of bytes" branch can never
 *   trigger (the 4-byte window always fits in 32 bytes), so the output repeats every 8 characters;
 *   we reproduce that;
 * - seededInt: min + (big-endian uint64 of hash[0..8]) mod (max − min), with Go's int64/uint64
 *   wrap-around for extreme ranges.
 */

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

function sha256(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

export function seededString(length: bigint, seed: string): string {
  if (length <= 0n) throw celError('random.seededString length must be positive');
  if (length > 1_000_000n) throw celError('random.seededString length exceeds the limit of 1000000');
  const hash = sha256(seed);
  let out = '';
  for (let i = 0; i < Number(length); i++) {
    const idx = hash.readUInt32BE((i * 4) % hash.length);
    out += ALPHABET[idx % ALPHABET.length];
  }
  return out;
}

export function seededInt(min: bigint, max: bigint, seed: string): bigint {
  if (min >= max) throw celError('random.seededInt min must be less than max');
  const v = sha256(seed).readBigUInt64BE(0);
  const rangeSize = BigInt.asUintN(64, BigInt.asIntN(64, max - min));
  return BigInt.asIntN(64, min + BigInt.asIntN(64, v % rangeSize));
}

export const kroRandomLibrary: CelLibrary = {
  name: 'kro random',
  install(env: Environment): void {
    const ns = ensureNamespace(env, 'random');
    env.registerFunction(`${ns}.seededString(int, string): string`, (_ns: unknown, n: bigint, seed: string) =>
      seededString(n, seed),
    );
    env.registerFunction(
      `${ns}.seededInt(int, int, string): int`,
      (_ns: unknown, a: bigint, b: bigint, seed: string) => seededInt(a, b, seed),
    );
  },
};

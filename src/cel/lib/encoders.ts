import type { Environment } from '@marcbachmann/cel-js';
import { celError } from './errors.ts';
import type { CelLibrary } from './library.ts';
import { ensureNamespace } from './namespaces.ts';

/**
 * cel-go encoders extension (ext/encoders.go): base64.encode(bytes) uses standard padded base64;
 * base64.decode(string) accepts padded input and, failing that, unpadded input (RawStdEncoding).
 * Validation is ours: Buffer.from(…, 'base64') silently skips invalid characters.
 */

const STD = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const RAW = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2,3})?$/;

export function base64Decode(input: string): Uint8Array {
  // Go's (non-strict) decoders skip \r and \n and ignore non-zero trailing bits.
  const s = input.replace(/[\r\n]/g, '');
  if (!STD.test(s) && !RAW.test(s)) throw celError('illegal base64 data at input byte 0');
  return new Uint8Array(Buffer.from(s, 'base64'));
}

export const encodersLibrary: CelLibrary = {
  name: 'cel-go encoders',
  install(env: Environment): void {
    const ns = ensureNamespace(env, 'base64');
    env.registerFunction(`${ns}.encode(bytes): string`, (_ns: unknown, b: Uint8Array) =>
      Buffer.from(b).toString('base64'),
    );
    env.registerFunction(`${ns}.decode(string): bytes`, (_ns: unknown, s: string) => base64Decode(s));
  },
};

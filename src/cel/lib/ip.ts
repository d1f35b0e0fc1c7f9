import type { Environment } from '@marcbachmann/cel-js';
import ipaddr from 'ipaddr.js';
import { celError } from './errors.ts';
import type { CelLibrary } from './library.ts';
import { ensureNamespace } from './namespaces.ts';

/**
 * Kubernetes IP and CIDR libraries (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go) over Go's
 * net/netip semantics. ipaddr.js is lenient where netip is strict (it accepts `010.1.1.1`,
 * `1.2.3` or hex parts for IPv4), so IPv4 text is validated here and ipaddr.js parses IPv6 only.
 * Zones and IPv4-mapped IPv6 addresses are rejected, as Kubernetes does.
 */

const V4_PART = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const V4 = new RegExp(`^${V4_PART}(?:\\.${V4_PART}){3}$`);

export class CelIP {
  constructor(readonly bytes: Uint8Array) {}

  get family(): 4 | 6 {
    return this.bytes.length === 4 ? 4 : 6;
  }

  toString(): string {
    if (this.family === 4) return [...this.bytes].join('.');
    return (ipaddr.fromByteArray([...this.bytes]) as ipaddr.IPv6).toRFC5952String();
  }

  equals(other: unknown): boolean {
    return other instanceof CelIP && other.toString() === this.toString();
  }

  private u16(i: number): number {
    return ((this.bytes[2 * i] ?? 0) << 8) | (this.bytes[2 * i + 1] ?? 0);
  }

  isUnspecified(): boolean {
    return this.bytes.every((b) => b === 0);
  }

  isLoopback(): boolean {
    if (this.family === 4) return this.bytes[0] === 127;
    return this.bytes.slice(0, 15).every((b) => b === 0) && this.bytes[15] === 1;
  }

  isMulticast(): boolean {
    return this.family === 4 ? ((this.bytes[0] ?? 0) & 0xf0) === 0xe0 : this.bytes[0] === 0xff;
  }

  isLinkLocalMulticast(): boolean {
    if (this.family === 4) return this.bytes[0] === 224 && this.bytes[1] === 0 && this.bytes[2] === 0;
    return (this.u16(0) & 0xff0f) === 0xff02;
  }

  isLinkLocalUnicast(): boolean {
    if (this.family === 4) return this.bytes[0] === 169 && this.bytes[1] === 254;
    return (this.u16(0) & 0xffc0) === 0xfe80;
  }

  /** netip.Addr.IsGlobalUnicast: private IPv4 and ULA IPv6 addresses count as global unicast. */
  isGlobalUnicast(): boolean {
    if (this.isUnspecified()) return false;
    if (this.family === 4 && this.bytes.every((b) => b === 255)) return false;
    return !this.isLoopback() && !this.isMulticast() && !this.isLinkLocalUnicast();
  }
}

export class CelCIDR {
  constructor(
    readonly ip: CelIP,
    readonly bits: number,
  ) {}

  toString(): string {
    return `${this.ip}/${this.bits}`;
  }

  equals(other: unknown): boolean {
    return other instanceof CelCIDR && other.toString() === this.toString();
  }

  masked(): CelCIDR {
    const bytes = new Uint8Array(this.ip.bytes);
    for (let i = 0; i < bytes.length; i++) {
      const keep = Math.max(0, Math.min(8, this.bits - i * 8));
      bytes[i] = (bytes[i] ?? 0) & ((0xff << (8 - keep)) & 0xff);
    }
    return new CelCIDR(new CelIP(bytes), this.bits);
  }

  containsIP(ip: CelIP): boolean {
    if (ip.family !== this.ip.family) return false;
    return new CelCIDR(ip, this.bits).masked().equals(this.masked());
  }

  /** Masks both sides, as fixed in kubernetes/kubernetes#130450 (earlier releases compared the unmasked address). */
  containsCIDR(other: CelCIDR): boolean {
    return this.containsIP(other.ip) && this.bits <= other.bits;
  }
}

/** `final` errors are reported as they are; others get Kubernetes' "parse error" prefix. */
class IPError extends Error {
  constructor(
    message: string,
    readonly final = false,
  ) {
    super(message);
  }
}

function parseAddr(s: string): CelIP {
  if (V4.test(s)) return new CelIP(new Uint8Array(s.split('.').map(Number)));
  if (s.includes(':')) {
    if (s.includes('%'))
      throw new IPError(`IP address ${JSON.stringify(s)} with zone value is not allowed`, true);
    // An embedded dotted IPv4 tail is converted to two hex groups here: ipaddr.js would read
    // `::1.2.3.4` as the mapped address ::ffff:1.2.3.4, where netip reads ::102:304.
    let text = s;
    const v4tail = /:([0-9.]+\.[0-9.]*)$/.exec(s);
    if (v4tail) {
      const v4 = v4tail[1] ?? '';
      if (!V4.test(v4)) throw new IPError(`ParseAddr(${JSON.stringify(s)}): invalid IPv4 field`);
      const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
      text = `${s.slice(0, s.length - v4.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
    }
    if (/^[0-9a-fA-F:]+$/.test(text) && ipaddr.IPv6.isValid(text)) {
      const bytes = new Uint8Array(ipaddr.IPv6.parse(text).toByteArray());
      if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
        throw new IPError(`IPv4-mapped IPv6 address ${JSON.stringify(s)} is not allowed`, true);
      }
      return new CelIP(bytes);
    }
  }
  throw new IPError(`ParseAddr(${JSON.stringify(s)}): unable to parse IP`);
}

export function parseIP(s: string): CelIP {
  try {
    return parseAddr(s);
  } catch (err) {
    if (!(err instanceof IPError)) throw err;
    if (err.final) throw celError(err.message);
    throw celError(
      `IP Address ${JSON.stringify(s)} parse error during conversion from string: ${err.message}`,
    );
  }
}

/** netip.ParsePrefix plus Kubernetes' checks; its errors are prefixed twice, as in cidr.go. */
export function parseCIDR(s: string): CelCIDR {
  const prefix = 'network address parse error during conversion from string: ';
  const where = `netip.ParsePrefix(${JSON.stringify(s)})`;
  const slash = s.lastIndexOf('/');
  let ip: CelIP;
  try {
    if (slash < 0) throw new IPError(`${where}: no '/'`);
    const addr = s.slice(0, slash);
    if (addr.includes('%')) throw new IPError(`${where}: IPv6 zones cannot be present in a prefix`);
    ip = parseAddr(addr);
    const bitsText = s.slice(slash + 1);
    if (!/^(?:0|[1-9][0-9]*)$/.test(bitsText))
      throw new IPError(`${where}: bad bits after slash: ${JSON.stringify(bitsText)}`);
    const bits = Number(bitsText);
    if (bits > (ip.family === 4 ? 32 : 128)) throw new IPError(`${where}: prefix length out of range`);
    return new CelCIDR(ip, bits);
  } catch (err) {
    if (!(err instanceof IPError)) throw err;
    if (err.final) throw celError(`${prefix}IPv4-mapped IPv6 address ${JSON.stringify(s)} is not allowed`);
    throw celError(
      `${prefix}${prefix}${err.message.startsWith(where) ? err.message : `${where}: ${err.message}`}`,
    );
  }
}

function succeeds(fn: () => unknown): boolean {
  try {
    fn();
    return true;
  } catch {
    return false;
  }
}

export const ipLibrary: CelLibrary = {
  name: 'kubernetes ip and cidr',
  install(env: Environment): void {
    env.registerType('net.IP', CelIP);
    env.registerType('net.CIDR', CelCIDR);
    env.registerFunction('ip(string): net.IP', parseIP);
    env.registerFunction('isIP(string): bool', (s: string) => succeeds(() => parseAddr(s)));
    const ns = ensureNamespace(env, 'ip');
    env.registerFunction(
      `${ns}.isCanonical(string): bool`,
      (_ns: unknown, s: string) => parseIP(s).toString() === s,
    );
    env.registerFunction('string(net.IP): string', (ip: CelIP) => ip.toString());
    env.registerFunction('net.IP.family(): int', (ip: CelIP) => BigInt(ip.family));
    env.registerFunction('net.IP.isUnspecified(): bool', (ip: CelIP) => ip.isUnspecified());
    env.registerFunction('net.IP.isLoopback(): bool', (ip: CelIP) => ip.isLoopback());
    env.registerFunction('net.IP.isLinkLocalMulticast(): bool', (ip: CelIP) => ip.isLinkLocalMulticast());
    env.registerFunction('net.IP.isLinkLocalUnicast(): bool', (ip: CelIP) => ip.isLinkLocalUnicast());
    env.registerFunction('net.IP.isGlobalUnicast(): bool', (ip: CelIP) => ip.isGlobalUnicast());
    env.registerOperator('net.IP == net.IP', (a: CelIP, b: CelIP) => a.equals(b));

    env.registerFunction('cidr(string): net.CIDR', parseCIDR);
    env.registerFunction('isCIDR(string): bool', (s: string) => succeeds(() => parseCIDR(s)));
    env.registerFunction('string(net.CIDR): string', (c: CelCIDR) => c.toString());
    env.registerFunction('net.CIDR.containsIP(net.IP): bool', (c: CelCIDR, ip: CelIP) => c.containsIP(ip));
    env.registerFunction('net.CIDR.containsIP(string): bool', (c: CelCIDR, s: string) =>
      c.containsIP(parseIP(s)),
    );
    env.registerFunction('net.CIDR.containsCIDR(net.CIDR): bool', (c: CelCIDR, o: CelCIDR) =>
      c.containsCIDR(o),
    );
    env.registerFunction('net.CIDR.containsCIDR(string): bool', (c: CelCIDR, s: string) =>
      c.containsCIDR(parseCIDR(s)),
    );
    env.registerFunction('net.CIDR.ip(): net.IP', (c: CelCIDR) => c.ip);
    env.registerFunction('net.CIDR.masked(): net.CIDR', (c: CelCIDR) => c.masked());
    env.registerFunction('net.CIDR.prefixLength(): int', (c: CelCIDR) => BigInt(c.bits));
    env.registerOperator('net.CIDR == net.CIDR', (a: CelCIDR, b: CelCIDR) => a.equals(b));
    registerNetTypeNames(env);
  },
};

/**
 * `net.IP` and `net.CIDR` as type values (`type(ip('1.2.3.4')) == net.IP`), as cel-go resolves qualified
 * type names. The engine compares types by identity and keeps the instance private, so the constant
 * reads it back lazily through `type(…)` on the first access (evaluation never modifies the registry).
 */
function registerNetTypeNames(env: Environment): void {
  const cache = new Map<string, unknown>();
  const typeOf = (name: string, sample: string): unknown => {
    let t = cache.get(name);
    if (t === undefined) {
      t = env.evaluate(sample);
      cache.set(name, t);
    }
    return t;
  };
  env.registerConstant('net', 'map<string, type>', {
    get IP() {
      return typeOf('IP', "type(ip('0.0.0.0'))");
    },
    get CIDR() {
      return typeOf('CIDR', "type(cidr('0.0.0.0/0'))");
    },
  });
}

import type { Environment } from '@marcbachmann/cel-js';
import { celError } from './errors.ts';
import type { CelLibrary } from './library.ts';

/**
 * Kubernetes URL library (k8s.io/apiserver/pkg/cel/library/urls.go). Kubernetes validates with Go's
 * url.ParseRequestURI (absolute URI or absolute path, no fragment handling) and then parses with
 * url.Parse. WHATWG URL differs from Go on the points that matter here (it rejects absolute paths
 * without a base, normalises hosts and paths, and accepts hosts Go rejects), so this module follows
 * Go's net/url algorithm directly for the parts the getters expose.
 */

export class CelUrl {
  constructor(
    readonly scheme: string,
    readonly opaque: string,
    readonly host: string,
    readonly rawPath: string,
    readonly rawQuery: string,
  ) {}

  equals(other: unknown): boolean {
    return (
      other instanceof CelUrl &&
      other.scheme === this.scheme &&
      other.opaque === this.opaque &&
      other.host === this.host &&
      other.rawPath === this.rawPath &&
      other.rawQuery === this.rawQuery
    );
  }
}

class UrlError extends Error {}

const hex = (c: string): boolean => /^[0-9a-fA-F]$/.test(c);

type Mode = 'path' | 'host' | 'query' | 'zone';

/** Go's shouldEscape for the modes we need. */
function shouldEscape(c: string, mode: Mode): boolean {
  if (/^[A-Za-z0-9]$/.test(c)) return false;
  if (mode === 'host' || mode === 'zone') {
    if ('!$&\'()*+,;=:[]<>"'.includes(c)) return false;
  }
  if ('-_.~'.includes(c)) return false;
  if ('$&+,/:;=?@'.includes(c)) {
    if (mode === 'path') return c === '?';
    return true;
  }
  return true;
}

/** Go's unescape: validates %XX sequences (and host characters); '+' becomes ' ' in query mode. */
function goUnescape(s: string, mode: Mode | 'queryComponent'): string {
  const bytes: number[] = [];
  const enc = new TextEncoder();
  for (let i = 0; i < s.length; ) {
    const c = s[i] as string;
    if (c === '%') {
      const a = s[i + 1] ?? '';
      const b = s[i + 2] ?? '';
      if (!hex(a) || !hex(b)) throw new UrlError(`invalid URL escape "${s.slice(i, i + 3)}"`);
      if (mode === 'host' && s.slice(i, i + 3) !== '%25') {
        const v = Number.parseInt(a + b, 16);
        if (v < 0x80) throw new UrlError(`invalid URL escape "${s.slice(i, i + 3)}"`);
      }
      bytes.push(Number.parseInt(a + b, 16));
      i += 3;
      continue;
    }
    if (c === '+' && mode === 'queryComponent') bytes.push(0x20);
    else {
      if ((mode === 'host' || mode === 'zone') && c.charCodeAt(0) < 0x80 && shouldEscape(c, mode)) {
        throw new UrlError(`invalid character "${c}" in host name`);
      }
      bytes.push(...enc.encode(c));
    }
    i += c.length;
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

function escapePath(s: string): string {
  let out = '';
  for (const b of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && !shouldEscape(c, 'path') ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Go's validEncoded(s, encodePath). */
function validEncodedPath(s: string): boolean {
  for (const c of s) {
    if ("!$&'()*+,;=:@[]".includes(c) || c === '%') continue;
    if (shouldEscape(c, 'path')) return false;
  }
  return true;
}

function validOptionalPort(port: string): boolean {
  if (port === '') return true;
  return /^:[0-9]*$/.test(port);
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port "${colonPort}" after host`);
    const zone = host.slice(0, i).indexOf('%25');
    if (zone >= 0) {
      return (
        goUnescape(host.slice(0, zone), 'host') +
        goUnescape(host.slice(zone, i), 'zone') +
        goUnescape(host.slice(i), 'host')
      );
    }
  } else {
    const i = host.lastIndexOf(':');
    if (i !== -1) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port "${colonPort}" after host`);
    }
  }
  return goUnescape(host, 'host');
}

/** Go's url.parse(rawURL, viaRequest) reduced to what the getters need. */
function goParse(raw: string, viaRequest: boolean): CelUrl {
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new UrlError('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new UrlError('empty url');
  if (raw === '*') return new CelUrl('', '', '', '*', '');
  let scheme = '';
  let rest = raw;
  const sm = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(raw);
  if (sm) {
    scheme = (sm[1] ?? '').toLowerCase();
    rest = raw.slice(sm[0].length);
  } else if (raw.startsWith(':')) {
    throw new UrlError('missing protocol scheme');
  }
  let rawQuery = '';
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (scheme !== '') return new CelUrl(scheme, rest, '', '', rawQuery);
    if (viaRequest) throw new UrlError('invalid URI for request');
    const colon = rest.indexOf(':');
    const slash = rest.indexOf('/');
    if (colon >= 0 && (slash < 0 || colon < slash))
      throw new UrlError('first path segment in URL cannot contain colon');
  }
  let host = '';
  if ((scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    const afterSlashes = rest.slice(2);
    const slash = afterSlashes.indexOf('/');
    const authority = slash < 0 ? afterSlashes : afterSlashes.slice(0, slash);
    rest = slash < 0 ? '' : afterSlashes.slice(slash);
    const at = authority.lastIndexOf('@');
    const hostPart = at < 0 ? authority : authority.slice(at + 1);
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo))
        throw new UrlError('net/url: invalid userinfo');
      goUnescape(userinfo, 'path');
    }
    host = parseHost(hostPart);
  }
  goUnescape(rest, 'path');
  return new CelUrl(scheme, '', host, rest, rawQuery);
}

export function parseUrl(raw: string): CelUrl {
  try {
    goParse(raw, true); // ParseRequestURI: absolute URI or absolute path
    const hash = raw.indexOf('#');
    const withoutFragment = hash >= 0 ? raw.slice(0, hash) : raw;
    if (hash >= 0) goUnescape(raw.slice(hash + 1), 'path');
    return goParse(withoutFragment, false);
  } catch (err) {
    // Go's *url.Error prints as `parse "<url>": <reason>`.
    if (err instanceof UrlError) {
      throw celError(
        `URL parse error during conversion from string: parse ${JSON.stringify(raw)}: ${err.message}`,
      );
    }
    throw err;
  }
}

function isUrl(raw: string): boolean {
  try {
    goParse(raw, true);
    return true;
  } catch {
    return false;
  }
}

function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = hostPort.lastIndexOf(':');
  if (colon !== -1 && validOptionalPort(hostPort.slice(colon))) {
    host = hostPort.slice(0, colon);
    port = hostPort.slice(colon + 1);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

function escapedPath(u: CelUrl): string {
  if (u.rawPath === '*') return '*';
  if (validEncodedPath(u.rawPath)) return u.rawPath;
  return escapePath(goUnescape(u.rawPath, 'path'));
}

/** Go's url.ParseQuery, ignoring malformed pairs (u.Query() drops the error). */
function query(u: CelUrl): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of u.rawQuery.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    const rawKey = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? '' : part.slice(eq + 1);
    let key: string;
    let value: string;
    try {
      key = goUnescape(rawKey, 'queryComponent');
      value = goUnescape(rawValue, 'queryComponent');
    } catch {
      continue;
    }
    if (!Object.hasOwn(out, key)) out[key] = [];
    out[key]?.push(value);
  }
  return out;
}

export const urlLibrary: CelLibrary = {
  name: 'kubernetes urls',
  install(env: Environment): void {
    env.registerType('kubernetes.URL', CelUrl);
    env.registerFunction('url(string): kubernetes.URL', parseUrl);
    env.registerFunction('isURL(string): bool', isUrl);
    env.registerFunction('kubernetes.URL.getScheme(): string', (u: CelUrl) => u.scheme);
    env.registerFunction('kubernetes.URL.getHost(): string', (u: CelUrl) => u.host);
    env.registerFunction('kubernetes.URL.getHostname(): string', (u: CelUrl) => splitHostPort(u.host)[0]);
    env.registerFunction('kubernetes.URL.getPort(): string', (u: CelUrl) => splitHostPort(u.host)[1]);
    env.registerFunction('kubernetes.URL.getEscapedPath(): string', escapedPath);
    env.registerFunction('kubernetes.URL.getQuery(): map<string, list<string>>', query);
    env.registerOperator('kubernetes.URL == kubernetes.URL', (a: CelUrl, b: CelUrl) => a.equals(b));
  },
};

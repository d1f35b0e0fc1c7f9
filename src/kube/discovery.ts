/**
 * API discovery: which resources exist, their kind ↔ plural mapping, whether
 * they are namespaced, their verbs and subresources. Templates name kinds; URLs
 * need plurals and scope, and only the server knows them for custom resources.
 *
 * Raw `GET /api`, `/apis`, `/api/v1`, `/apis/<g>/<v>`, cached per group-version.
 * A kind missing from a cached group-version triggers one refetch (a CRD may
 * have just been established); `invalidate()` drops entries on CRD changes.
 */

import { isRecord } from '../diag/record.ts';
import { isApiError } from './errors.ts';
import { formatApiVersion, groupVersionPath, parseApiVersion } from './paths.ts';
import type { RawRequest } from './transport.ts';

export interface ResourceInfo {
  group: string;
  version: string;
  apiVersion: string;
  kind: string;
  /** The resource name used in URLs, e.g. `configmaps`. */
  plural: string;
  singular: string;
  namespaced: boolean;
  verbs: string[];
  shortNames: string[];
  categories: string[];
  /** Subresource names, e.g. `status`, `scale`. */
  subresources: string[];
}

export interface GroupInfo {
  /** '' for the core group. */
  name: string;
  versions: string[];
  preferredVersion: string;
}

/** Thrown when discovery does not know a kind (or the group-version does not exist). */
export class NoKindMatchError extends Error {
  readonly apiVersion: string;
  readonly kind: string;
  constructor(apiVersion: string, kind: string, why: string) {
    super(`no resource for kind ${kind} in ${apiVersion}: ${why}`);
    this.name = 'NoKindMatchError';
    this.apiVersion = apiVersion;
    this.kind = kind;
  }
}

interface GvEntry {
  /** undefined: the group-version does not exist (404). */
  resources: ResourceInfo[] | undefined;
  fetchedAt: number;
}

export interface DiscoveryOptions {
  /** Entries older than this are refetched on use (default 10 min). */
  ttlMs?: number;
  /** A miss refetches a group-version at most this often (default 1 s). */
  missRefreshMs?: number;
  now?: () => number;
}

/** What discovery reads through: a RestClient (rest.ts) — only its raw GET, so the client can own a Discovery. */
export interface DiscoveryClient {
  request(req: RawRequest): Promise<unknown>;
}

export class Discovery {
  private readonly client: DiscoveryClient;
  private readonly ttlMs: number;
  private readonly missRefreshMs: number;
  private readonly now: () => number;
  private readonly gvs = new Map<string, Promise<GvEntry>>();
  private groupsCache: Promise<{ groups: GroupInfo[]; fetchedAt: number }> | undefined;

  constructor(client: DiscoveryClient, opts: DiscoveryOptions = {}) {
    this.client = client;
    this.ttlMs = opts.ttlMs ?? 600_000;
    this.missRefreshMs = opts.missRefreshMs ?? 1_000;
    this.now = opts.now ?? Date.now;
  }

  /** Drops cached discovery: one group-version, or everything. */
  invalidate(apiVersion?: string): void {
    if (apiVersion === undefined) {
      this.gvs.clear();
    } else {
      this.gvs.delete(apiVersion);
    }
    this.groupsCache = undefined;
  }

  /** All API groups with their versions (core group first, named ''). */
  async groups(): Promise<GroupInfo[]> {
    const cached = this.groupsCache ? await this.groupsCache.catch(() => undefined) : undefined;
    if (cached && this.now() - cached.fetchedAt < this.ttlMs) return cached.groups;
    const p = this.fetchGroups();
    this.groupsCache = p;
    p.catch(() => {
      if (this.groupsCache === p) this.groupsCache = undefined;
    });
    return (await p).groups;
  }

  private async fetchGroups(): Promise<{ groups: GroupInfo[]; fetchedAt: number }> {
    const fetchedAt = this.now();
    const core = await this.client.request({ method: 'GET', path: '/api', verb: 'get' });
    const groups: GroupInfo[] = [];
    if (isRecord(core) && Array.isArray(core.versions)) {
      const versions = core.versions.filter((v): v is string => typeof v === 'string');
      groups.push({ name: '', versions, preferredVersion: versions[0] ?? 'v1' });
    }
    const named = await this.client.request({ method: 'GET', path: '/apis', verb: 'get' });
    if (isRecord(named) && Array.isArray(named.groups)) {
      for (const g of named.groups) {
        if (!isRecord(g) || typeof g.name !== 'string') continue;
        const versions = Array.isArray(g.versions)
          ? g.versions.flatMap((v) => (isRecord(v) && typeof v.version === 'string' ? [v.version] : []))
          : [];
        const pref =
          isRecord(g.preferredVersion) && typeof g.preferredVersion.version === 'string'
            ? g.preferredVersion.version
            : (versions[0] ?? '');
        groups.push({ name: g.name, versions, preferredVersion: pref });
      }
    }
    return { groups, fetchedAt };
  }

  /** The resources of one group-version; undefined when the server does not serve it (rechecked after 1 s). */
  async resources(apiVersion: string): Promise<ResourceInfo[] | undefined> {
    const e = await this.entry(apiVersion, false);
    if (e.resources !== undefined) return e.resources;
    return (await this.entry(apiVersion, true)).resources;
  }

  private async entry(apiVersion: string, refreshOnMiss: boolean): Promise<GvEntry> {
    const existing = this.gvs.get(apiVersion);
    if (existing) {
      const e = await existing.catch(() => undefined);
      if (e) {
        const age = this.now() - e.fetchedAt;
        if (age < this.ttlMs && !(refreshOnMiss && age >= this.missRefreshMs)) return e;
      }
      // A concurrent caller may already have replaced the entry.
      const current = this.gvs.get(apiVersion);
      if (current && current !== existing) return current;
    }
    const p = this.fetchGv(apiVersion);
    this.gvs.set(apiVersion, p);
    p.catch(() => {
      if (this.gvs.get(apiVersion) === p) this.gvs.delete(apiVersion);
    });
    return p;
  }

  private async fetchGv(apiVersion: string): Promise<GvEntry> {
    const fetchedAt = this.now();
    let body: unknown;
    try {
      body = await this.client.request({ method: 'GET', path: groupVersionPath(apiVersion), verb: 'get' });
    } catch (e) {
      if (isApiError(e) && e.code === 404) return { resources: undefined, fetchedAt };
      throw e;
    }
    return { resources: parseResourceList(apiVersion, body), fetchedAt };
  }

  /** Kind → resource. Refetches the group-version once when the kind is unknown. */
  async resolveKind(apiVersion: string, kind: string): Promise<ResourceInfo> {
    for (const refresh of [false, true]) {
      const e = await this.entry(apiVersion, refresh);
      const found = e.resources?.find((r) => r.kind === kind);
      if (found) return found;
    }
    const e = await this.entry(apiVersion, false);
    throw new NoKindMatchError(
      apiVersion,
      kind,
      e.resources === undefined ? 'the group-version is not served' : 'the kind is not served',
    );
  }

  /** Plural (or singular, or short name) → resource. */
  async resolveResource(apiVersion: string, name: string): Promise<ResourceInfo | undefined> {
    for (const refresh of [false, true]) {
      const e = await this.entry(apiVersion, refresh);
      const found = e.resources?.find(
        (r) => r.plural === name || r.singular === name || r.shortNames.includes(name),
      );
      if (found) return found;
    }
    return undefined;
  }

  /** Every resource of every group's preferred version. */
  async preferredResources(): Promise<ResourceInfo[]> {
    const groups = await this.groups();
    const lists = await Promise.all(
      groups.map((g) => this.resources(formatApiVersion({ group: g.name, version: g.preferredVersion }))),
    );
    return lists.flatMap((l) => l ?? []);
  }

  /** Finds a kind in any served version of a group (preferred version first). */
  async resolveGroupKind(group: string, kind: string): Promise<ResourceInfo | undefined> {
    const g = (await this.groups()).find((x) => x.name === group);
    if (!g) return undefined;
    const versions = [g.preferredVersion, ...g.versions.filter((v) => v !== g.preferredVersion)];
    for (const version of versions) {
      const rs = await this.resources(formatApiVersion({ group, version }));
      const found = rs?.find((r) => r.kind === kind);
      if (found) return found;
    }
    return undefined;
  }
}

/** Parses an APIResourceList into resources, attaching subresources to their parents. */
export function parseResourceList(apiVersion: string, body: unknown): ResourceInfo[] {
  const { group, version } = parseApiVersion(apiVersion);
  if (!isRecord(body) || !Array.isArray(body.resources)) return [];
  const out = new Map<string, ResourceInfo>();
  const subs: [string, string][] = [];
  for (const r of body.resources) {
    if (!isRecord(r) || typeof r.name !== 'string') continue;
    const slash = r.name.indexOf('/');
    if (slash >= 0) {
      subs.push([r.name.slice(0, slash), r.name.slice(slash + 1)]);
      continue;
    }
    const strings = (v: unknown): string[] =>
      Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
    out.set(r.name, {
      group,
      version,
      apiVersion,
      kind: typeof r.kind === 'string' ? r.kind : '',
      plural: r.name,
      singular: typeof r.singularName === 'string' && r.singularName !== '' ? r.singularName : r.name,
      namespaced: r.namespaced === true,
      verbs: strings(r.verbs),
      shortNames: strings(r.shortNames),
      categories: strings(r.categories),
      subresources: [],
    });
  }
  for (const [parent, sub] of subs) out.get(parent)?.subresources.push(sub);
  return [...out.values()];
}

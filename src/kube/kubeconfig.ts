/**
 * kgraph's own kubeconfig reader: loading (a file, a string, options, the default chain of KUBECONFIG,
 * ~/.kube/config and the in-cluster service account), contexts, and TLS + credentials applied to an
 * HTTPS request.
 *
 * Why our own: `@kubernetes/client-node`'s `KubeConfig` statically imports its whole generated API
 * (models and clients kgraph never uses), which takes a bare Node process from ~39 to ~114 MiB RSS and
 * costs most of the controller's start-up CPU. The common credentials — client certificates,
 * bearer tokens (inline or a file, re-read when it changes), basic auth, CA, insecure-skip-tls-verify,
 * tls-server-name, impersonation — are a few lines each. Exec plugins, auth providers and proxies are
 * delegated to client-node, imported on first use only, so processes with ordinary kubeconfigs never
 * load it.
 *
 * Entries keep the field names of kubeconfig YAML (`certificate-authority-data`, `client-key`,
 * `tokenFile`, `insecure-skip-tls-verify`, …), flattened beside their `name`. Scalars are read as the
 * kubeconfig's Go reader reads them: a string field is the text as written (`token: 0123` stays
 * "0123"), a boolean field accepts YAML 1.1 booleans.
 */
import { readFileSync, statSync } from 'node:fs';
import type https from 'node:https';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import type { KubeConfig as ClientNodeKubeConfig } from '@kubernetes/client-node';
import { Alias, isMap, isScalar, isSeq, type Node, parseDocument, Scalar } from 'yaml';
import { KgraphError } from '../diag/diagnostic.ts';

/** A cluster entry: `clusters[].cluster` of a kubeconfig with its `name`. */
export interface KubeCluster {
  name: string;
  server: string;
  'certificate-authority-data'?: string;
  /** A path; made absolute against the kubeconfig's directory when loaded from a file. */
  'certificate-authority'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
  'proxy-url'?: string;
  'disable-compression'?: boolean;
}

/** `users[].user.exec`: a credential plugin (run by client-node). */
export interface KubeExecConfig {
  apiVersion?: string;
  command: string;
  args?: string[];
  env?: { name: string; value: string }[];
  installHint?: string;
  provideClusterInfo?: boolean;
  interactiveMode?: string;
}

/** `users[].user.auth-provider` (run by client-node). */
export interface KubeAuthProvider {
  name: string;
  config?: Record<string, string>;
}

/** A user entry: `users[].user` of a kubeconfig with its `name`. */
export interface KubeUser {
  name: string;
  'client-certificate-data'?: string;
  /** A path; made absolute against the kubeconfig's directory when loaded from a file. */
  'client-certificate'?: string;
  'client-key-data'?: string;
  'client-key'?: string;
  token?: string;
  /** A file holding the bearer token; read again when it changes (rotated tokens). Wins over `token`. */
  tokenFile?: string;
  username?: string;
  password?: string;
  as?: string;
  'as-groups'?: string[];
  'as-uid'?: string;
  'as-user-extra'?: Record<string, string[]>;
  exec?: KubeExecConfig;
  'auth-provider'?: KubeAuthProvider;
}

/** A context entry: `contexts[].context` of a kubeconfig with its `name`. */
export interface KubeContext {
  name: string;
  cluster: string;
  /** Empty: no credentials (anonymous). */
  user: string;
  namespace?: string;
}

export interface KubeConfigOptions {
  clusters: KubeCluster[];
  users: KubeUser[];
  contexts: KubeContext[];
  currentContext?: string;
}

/** Where `loadFromDefault` looks; the process's environment and home unless given (tests). */
export interface KubeConfigDefaults {
  env?: Record<string, string | undefined>;
  homeDir?: string;
  /** The service account directory of the in-cluster config. */
  serviceAccountDir?: string;
}

export type KubeConfigProblem =
  | 'invalid'
  | 'no-config'
  | 'no-current-context'
  | 'unknown-context'
  | 'unknown-cluster'
  | 'unknown-user';

const PROBLEM_CODES: Record<KubeConfigProblem, string> = {
  invalid: 'KG6010',
  'no-config': 'KG6011',
  'no-current-context': 'KG6011',
  'unknown-context': 'KG6012',
  'unknown-cluster': 'KG6011',
  'unknown-user': 'KG6011',
};

/** A kubeconfig that does not load, or names a context, cluster or user it does not hold. */
export class KubeConfigError extends KgraphError {
  readonly problem: KubeConfigProblem;
  constructor(problem: KubeConfigProblem, message: string) {
    super(PROBLEM_CODES[problem], message);
    this.name = 'KubeConfigError';
    this.problem = problem;
  }
}

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** HTTPS request options as `applyToHTTPSOptions` fills them (Node's, with headers as a plain record). */
export type KubeRequestOptions = https.RequestOptions;

export class KubeConfig {
  clusters: KubeCluster[] = [];
  users: KubeUser[] = [];
  contexts: KubeContext[] = [];
  currentContext = '';
  /** The files this config was loaded from, in order ([] for strings and options). */
  files: string[] = [];

  private readonly fileCache = new FileCache();
  /** client-node's KubeConfig for the current context, when its user or cluster needs it. */
  private delegate: { key: string; kc: Promise<ClientNodeKubeConfig> } | undefined;

  // ------------------------------------------------------------------ loading

  /** Loads one kubeconfig file; relative paths in it are resolved against its directory. */
  loadFromFile(file: string): void {
    const parsed = parseFile(file);
    this.setAll(parsed);
    this.files = [file];
  }

  /** Loads kubeconfig text; relative paths stay relative unless `baseDir` is given. */
  loadFromString(text: string, opts: { baseDir?: string; source?: string } = {}): void {
    this.setAll(parseKubeConfig(text, opts.source ?? 'kubeconfig', opts.baseDir));
    this.files = [];
  }

  loadFromOptions(options: KubeConfigOptions): void {
    this.setAll({
      clusters: options.clusters.map((c) => ({ ...c })),
      users: options.users.map((u) => ({ ...u })),
      contexts: options.contexts.map((c) => ({ ...c })),
      currentContext: options.currentContext ?? '',
    });
    this.files = [];
  }

  /**
   * As kubectl: the files of KUBECONFIG (the platform's path list; missing files skipped) merged —
   * the first file that names a cluster, user or context wins, the current context is the first one
   * set —, else ~/.kube/config, else the in-cluster service account when KUBERNETES_SERVICE_HOST is
   * set. Nothing found is an error (no silent fallback to an unauthenticated localhost).
   */
  loadFromDefault(defaults: KubeConfigDefaults = {}): void {
    const env = defaults.env ?? process.env;
    const list = env.KUBECONFIG;
    if (list) {
      const files = [...new Set(list.split(delimiter).filter((f) => f !== ''))];
      const present = files.filter((f) => fileExists(f));
      if (present.length === 0) {
        throw new KubeConfigError(
          'no-config',
          `none of the KUBECONFIG files exists: ${files.join(delimiter) || '(empty)'}`,
        );
      }
      this.setAll(mergeKubeConfigs(present.map(parseFile)));
      this.files = present;
      return;
    }
    const home = join(defaults.homeDir ?? env.HOME ?? homedir(), '.kube', 'config');
    if (fileExists(home)) {
      this.loadFromFile(home);
      return;
    }
    if (env.KUBERNETES_SERVICE_HOST) {
      this.loadFromCluster({
        env,
        ...(defaults.serviceAccountDir ? { dir: defaults.serviceAccountDir } : {}),
      });
      return;
    }
    throw new KubeConfigError(
      'no-config',
      'no kubeconfig: KUBECONFIG is not set, ~/.kube/config does not exist and this is not a pod (KUBERNETES_SERVICE_HOST is not set)',
    );
  }

  /** The in-cluster config: the service account's token (re-read as it rotates), CA and namespace. */
  loadFromCluster(opts: { env?: Record<string, string | undefined>; dir?: string } = {}): void {
    const env = opts.env ?? process.env;
    const dir = opts.dir ?? SERVICE_ACCOUNT_DIR;
    const host = env.KUBERNETES_SERVICE_HOST;
    const port = env.KUBERNETES_SERVICE_PORT;
    if (!host || !port) {
      throw new KubeConfigError(
        'no-config',
        'not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must both be set',
      );
    }
    const tokenFile = join(dir, 'token');
    if (!fileExists(tokenFile)) {
      throw new KubeConfigError('no-config', `in-cluster config: no service account token at ${tokenFile}`);
    }
    let namespace: string | undefined;
    try {
      namespace = readFileSync(join(dir, 'namespace'), 'utf8').trim() || undefined;
    } catch {
      namespace = undefined;
    }
    const cluster: KubeCluster = { name: 'in-cluster', server: `https://${hostPort(host, port)}` };
    if (fileExists(join(dir, 'ca.crt'))) cluster['certificate-authority'] = join(dir, 'ca.crt');
    this.setAll({
      clusters: [cluster],
      users: [{ name: 'in-cluster', tokenFile }],
      contexts: [
        {
          name: 'in-cluster',
          cluster: 'in-cluster',
          user: 'in-cluster',
          ...(namespace ? { namespace } : {}),
        },
      ],
      currentContext: 'in-cluster',
    });
    this.files = [];
  }

  private setAll(c: Required<KubeConfigOptions>): void {
    this.clusters = c.clusters;
    this.users = c.users;
    this.contexts = c.contexts;
    this.currentContext = c.currentContext;
    this.delegate = undefined;
  }

  // ------------------------------------------------------------------ lookups

  getContexts(): KubeContext[] {
    return this.contexts;
  }
  getClusters(): KubeCluster[] {
    return this.clusters;
  }
  getUsers(): KubeUser[] {
    return this.users;
  }
  /** The current context's name ('' when none is set). */
  getCurrentContext(): string {
    return this.currentContext;
  }
  /** Makes `name` current; a name the config does not hold is a `KubeConfigError` (unknown-context). */
  setCurrentContext(name: string): void {
    if (!this.getContextObject(name)) {
      throw new KubeConfigError(
        'unknown-context',
        `the kubeconfig has no context "${name}" (it has: ${this.contexts.map((c) => c.name).join(', ') || 'none'})`,
      );
    }
    this.currentContext = name;
    this.delegate = undefined;
  }
  getContextObject(name: string): KubeContext | undefined {
    return this.contexts.find((c) => c.name === name);
  }
  getCluster(name: string): KubeCluster | undefined {
    return this.clusters.find((c) => c.name === name);
  }
  getUser(name: string): KubeUser | undefined {
    return this.users.find((u) => u.name === name);
  }
  getCurrentContextObject(): KubeContext | undefined {
    return this.getContextObject(this.currentContext);
  }
  getCurrentCluster(): KubeCluster | undefined {
    const ctx = this.getCurrentContextObject();
    return ctx ? this.getCluster(ctx.cluster) : undefined;
  }
  getCurrentUser(): KubeUser | undefined {
    const ctx = this.getCurrentContextObject();
    return ctx ? this.getUser(ctx.user) : undefined;
  }

  /** The current context, its cluster and user, or a `KubeConfigError` saying which is missing. */
  requireCurrent(): { context: KubeContext; cluster: KubeCluster; user: KubeUser | undefined } {
    if (!this.currentContext)
      throw new KubeConfigError('no-current-context', 'the kubeconfig has no current context');
    const context = this.getCurrentContextObject();
    if (!context) {
      throw new KubeConfigError(
        'unknown-context',
        `the kubeconfig's current context "${this.currentContext}" is not among its contexts (${this.contexts.map((c) => c.name).join(', ') || 'none'})`,
      );
    }
    const cluster = this.getCluster(context.cluster);
    if (!cluster) {
      throw new KubeConfigError(
        'unknown-cluster',
        `context "${context.name}" names cluster "${context.cluster}", which the kubeconfig does not hold`,
      );
    }
    const user = context.user ? this.getUser(context.user) : undefined;
    if (context.user && !user) {
      throw new KubeConfigError(
        'unknown-user',
        `context "${context.name}" names user "${context.user}", which the kubeconfig does not hold`,
      );
    }
    return { context, cluster, user };
  }

  // ------------------------------------------------------------------ export

  /** The config as kubeconfig JSON (valid YAML; every reader types it alike). */
  exportConfig(): string {
    return JSON.stringify(
      {
        apiVersion: 'v1',
        kind: 'Config',
        preferences: {},
        clusters: this.clusters.map(({ name, ...cluster }) => ({ name, cluster })),
        users: this.users.map(({ name, ...user }) => ({ name, user })),
        contexts: this.contexts.map(({ name, ...context }) => ({ name, context })),
        'current-context': this.currentContext,
      },
      null,
      2,
    );
  }

  // ------------------------------------------------------------------ requests

  /**
   * Sets the current context's TLS material (CA, client certificate and key, server name, verification)
   * and credentials (bearer token, basic auth, impersonation headers) on `opts`. Exec plugins, auth
   * providers and proxies go through client-node, loaded now if not before.
   */
  async applyToHTTPSOptions(opts: KubeRequestOptions): Promise<void> {
    const { context, cluster, user } = this.requireCurrent();
    if (needsClientNode(cluster, user)) {
      const key = `${context.name}\0${cluster.name}\0${user?.name ?? ''}`;
      if (this.delegate?.key !== key) this.delegate = { key, kc: this.clientNodeConfig() };
      const kc = await this.delegate.kc;
      await kc.applyToHTTPSOptions(opts);
      return;
    }
    if (cluster['insecure-skip-tls-verify']) opts.rejectUnauthorized = false;
    if (cluster['tls-server-name']) opts.servername = cluster['tls-server-name'];
    const ca = this.material(cluster['certificate-authority'], cluster['certificate-authority-data']);
    if (ca) opts.ca = ca;
    if (!user) return;
    const cert = this.material(user['client-certificate'], user['client-certificate-data']);
    if (cert) opts.cert = cert;
    const key = this.material(user['client-key'], user['client-key-data']);
    if (key) opts.key = key;
    opts.headers ??= {};
    const headers = opts.headers as Record<string, string | string[] | number>;
    const token = user.tokenFile ? this.fileCache.read(user.tokenFile).toString('utf8').trim() : user.token;
    if (token) headers.Authorization = `Bearer ${token}`;
    else if (user.username !== undefined) opts.auth = `${user.username}:${user.password ?? ''}`;
    if (user.as) headers['Impersonate-User'] = user.as;
    if (user['as-groups']?.length) headers['Impersonate-Group'] = [...user['as-groups']];
    if (user['as-uid']) headers['Impersonate-Uid'] = user['as-uid'];
    for (const [k, vs] of Object.entries(user['as-user-extra'] ?? {})) {
      headers[`Impersonate-Extra-${encodeURIComponent(k)}`] = [...vs];
    }
  }

  private material(file: string | undefined, data: string | undefined): Buffer | undefined {
    if (file) return this.fileCache.read(file);
    if (data) return Buffer.from(data, 'base64');
    return undefined;
  }

  /** client-node's KubeConfig holding only the current context (what the delegated plugins see). */
  private async clientNodeConfig(): Promise<ClientNodeKubeConfig> {
    const { context, cluster, user } = this.requireCurrent();
    const only = new KubeConfig();
    only.loadFromOptions({
      clusters: [cluster],
      users: user ? [user] : [],
      contexts: [context],
      currentContext: context.name,
    });
    const { KubeConfig: ClientNode } = await import('@kubernetes/client-node');
    const kc = new ClientNode();
    kc.loadFromString(only.exportConfig());
    return kc;
  }
}

/** Whether a context needs client-node: exec plugins, auth providers, proxies. */
export function needsClientNode(cluster: KubeCluster, user: KubeUser | undefined): boolean {
  return Boolean(cluster['proxy-url'] || user?.exec || user?.['auth-provider']);
}

/**
 * Merges parsed kubeconfigs as kubectl merges the files of KUBECONFIG: the first to name a cluster,
 * user or context keeps it, the current context is the first non-empty one.
 */
export function mergeKubeConfigs(configs: Required<KubeConfigOptions>[]): Required<KubeConfigOptions> {
  const out: Required<KubeConfigOptions> = { clusters: [], users: [], contexts: [], currentContext: '' };
  const firstByName = <T extends { name: string }>(into: T[], from: T[]) => {
    for (const e of from) if (!into.some((x) => x.name === e.name)) into.push(e);
  };
  for (const c of configs) {
    firstByName(out.clusters, c.clusters);
    firstByName(out.users, c.users);
    firstByName(out.contexts, c.contexts);
    if (!out.currentContext && c.currentContext) out.currentContext = c.currentContext;
  }
  return out;
}

// ------------------------------------------------------------------ parsing

function parseFile(file: string): Required<KubeConfigOptions> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    // Node's message names the path ("ENOENT: no such file or directory, open '…'").
    throw new KubeConfigError('invalid', (e as Error).message);
  }
  return parseKubeConfig(text, file, dirname(file));
}

/** A YAML value with every scalar as its text (null scalars as undefined). */
type Plain = string | undefined | Plain[] | { [k: string]: Plain };

const NULLS = new Set(['', '~', 'null', 'Null', 'NULL']);
const TRUE = new Set(['true', 'True', 'TRUE', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'y', 'Y']);
const FALSE = new Set(['false', 'False', 'FALSE', 'no', 'No', 'NO', 'off', 'Off', 'OFF', 'n', 'N']);

function plain(node: unknown, doc: Parameters<Alias['resolve']>[0], depth = 0): Plain {
  if (depth > 64) throw new Error('nested too deeply');
  if (node instanceof Alias) return plain(node.resolve(doc), doc, depth + 1);
  if (isScalar(node)) {
    const text = String((node as Scalar).value ?? '');
    return node.type === Scalar.PLAIN && NULLS.has(text) ? undefined : text;
  }
  if (isSeq(node)) return node.items.map((i) => plain(i, doc, depth + 1));
  if (isMap(node)) {
    const out: { [k: string]: Plain } = {};
    for (const pair of node.items) {
      const k = plain(pair.key, doc, depth + 1);
      if (typeof k === 'string') out[k] = plain(pair.value as Node | null, doc, depth + 1);
    }
    return out;
  }
  return undefined;
}

type PlainMap = { [k: string]: Plain };
const isPlainMap = (v: Plain): v is PlainMap => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses kubeconfig text; relative file paths are resolved against `baseDir` when given. */
export function parseKubeConfig(text: string, source: string, baseDir?: string): Required<KubeConfigOptions> {
  const bad = (what: string): never => {
    throw new KubeConfigError('invalid', `${source}: ${what}`);
  };
  const doc = parseDocument(text, { schema: 'failsafe', uniqueKeys: false });
  if (doc.errors.length > 0) bad(`not YAML: ${doc.errors[0]?.message ?? ''}`);
  let root: Plain;
  try {
    root = plain(doc.contents, doc);
  } catch (e) {
    return bad((e as Error).message);
  }
  if (root === undefined) root = {};
  if (!isPlainMap(root)) return bad('not a mapping');
  const r = new KubeconfigReader(root, bad, baseDir);
  return {
    clusters: r.named('clusters', 'cluster').map((e) => r.cluster(e)),
    users: r.named('users', 'user').map((e) => r.user(e)),
    contexts: r.named('contexts', 'context').map((e) => r.context(e)),
    currentContext: r.str(root, 'current-context', 'the config') ?? '',
  };
}

/** One `[{name, <key>: {...}}]` entry: its name, its body and where it is, for messages. */
interface NamedEntry {
  name: string;
  body: PlainMap;
  where: string;
}

/**
 * Reads the plain kubeconfig tree into typed entries, as strictly as the Go reader: a value of the
 * wrong shape is an error naming where it is (`users[0].user.exec.args is not a list of strings`).
 */
class KubeconfigReader {
  constructor(
    private readonly root: PlainMap,
    private readonly bad: (what: string) => never,
    private readonly baseDir: string | undefined,
  ) {}

  str(m: PlainMap, k: string, where: string): string | undefined {
    const v = m[k];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') return this.bad(`${where}.${k} is not a string`);
    return v;
  }

  private bool(m: PlainMap, k: string, where: string): boolean | undefined {
    const v = this.str(m, k, where);
    if (v === undefined) return undefined;
    if (TRUE.has(v)) return true;
    if (FALSE.has(v)) return false;
    return this.bad(`${where}.${k} is not a boolean: ${v}`);
  }

  private strList(m: PlainMap, k: string, where: string): string[] | undefined {
    const v = m[k];
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))
      return this.bad(`${where}.${k} is not a list of strings`);
    return v as string[];
  }

  /** A file path, relative ones resolved against the kubeconfig's directory. */
  private path(p: string | undefined): string | undefined {
    return p && this.baseDir && !isAbsolute(p) ? join(this.baseDir, p) : p;
  }

  /** `[{name, <key>: {...}}]` entries, names unique (as the Go reader requires). */
  named(list: string, key: string): NamedEntry[] {
    const v = this.root[list];
    if (v === undefined) return [];
    if (!Array.isArray(v)) return this.bad(`${list} is not a list`);
    const seen = new Set<string>();
    return v.map((e, i) => {
      const where = `${list}[${i}]`;
      if (!isPlainMap(e)) return this.bad(`${where} is not a mapping`);
      const name = this.str(e, 'name', where);
      if (!name) return this.bad(`${where}.name is missing`);
      if (seen.has(name)) return this.bad(`${list}: the name "${name}" appears twice`);
      seen.add(name);
      const body = e[key] ?? {};
      if (!isPlainMap(body)) return this.bad(`${where}.${key} is not a mapping`);
      return { name, body, where: `${where}.${key}` };
    });
  }

  cluster({ name, body, where }: NamedEntry): KubeCluster {
    const server = this.str(body, 'server', where);
    if (!server) return this.bad(`${where}.server is missing`);
    const c: KubeCluster = { name, server };
    set(c, 'certificate-authority-data', this.str(body, 'certificate-authority-data', where));
    set(c, 'certificate-authority', this.path(this.str(body, 'certificate-authority', where)));
    set(c, 'insecure-skip-tls-verify', this.bool(body, 'insecure-skip-tls-verify', where));
    set(c, 'tls-server-name', this.str(body, 'tls-server-name', where));
    set(c, 'proxy-url', this.str(body, 'proxy-url', where));
    set(c, 'disable-compression', this.bool(body, 'disable-compression', where));
    return c;
  }

  user({ name, body, where }: NamedEntry): KubeUser {
    const u: KubeUser = { name };
    set(u, 'client-certificate-data', this.str(body, 'client-certificate-data', where));
    set(u, 'client-certificate', this.path(this.str(body, 'client-certificate', where)));
    set(u, 'client-key-data', this.str(body, 'client-key-data', where));
    set(u, 'client-key', this.path(this.str(body, 'client-key', where)));
    set(u, 'token', this.str(body, 'token', where));
    set(u, 'tokenFile', this.path(this.str(body, 'tokenFile', where)));
    set(u, 'username', this.str(body, 'username', where));
    set(u, 'password', this.str(body, 'password', where));
    set(u, 'as', this.str(body, 'as', where));
    set(u, 'as-groups', this.strList(body, 'as-groups', where));
    set(u, 'as-uid', this.str(body, 'as-uid', where));
    const extra = body['as-user-extra'];
    if (extra !== undefined) {
      if (!isPlainMap(extra)) return this.bad(`${where}.as-user-extra is not a mapping`);
      const out: Record<string, string[]> = {};
      for (const k of Object.keys(extra)) out[k] = this.strList(extra, k, `${where}.as-user-extra`) ?? [];
      u['as-user-extra'] = out;
    }
    if (body.exec !== undefined) u.exec = this.exec(body.exec, `${where}.exec`);
    if (body['auth-provider'] !== undefined)
      u['auth-provider'] = this.authProvider(body['auth-provider'], `${where}.auth-provider`);
    return u;
  }

  private exec(exec: Plain, where: string): KubeExecConfig {
    if (!isPlainMap(exec)) return this.bad(`${where} is not a mapping`);
    const command = this.str(exec, 'command', where);
    if (!command) return this.bad(`${where}.command is missing`);
    // As kubectl: a relative command with a directory in it is relative to the kubeconfig's
    // directory; a bare name is looked up on PATH.
    const e: KubeExecConfig = { command: command.includes('/') ? (this.path(command) ?? command) : command };
    set(e, 'apiVersion', this.str(exec, 'apiVersion', where));
    set(e, 'args', this.strList(exec, 'args', where));
    const env = exec.env;
    if (env !== undefined) {
      if (!Array.isArray(env)) return this.bad(`${where}.env is not a list`);
      e.env = env.map((x, i) => {
        const at = `${where}.env[${i}]`;
        if (!isPlainMap(x)) return this.bad(`${at} is not a mapping`);
        return { name: this.str(x, 'name', at) ?? '', value: this.str(x, 'value', at) ?? '' };
      });
    }
    set(e, 'installHint', this.str(exec, 'installHint', where));
    set(e, 'provideClusterInfo', this.bool(exec, 'provideClusterInfo', where));
    set(e, 'interactiveMode', this.str(exec, 'interactiveMode', where));
    return e;
  }

  private authProvider(ap: Plain, where: string): KubeAuthProvider {
    if (!isPlainMap(ap)) return this.bad(`${where} is not a mapping`);
    const p: KubeAuthProvider = { name: this.str(ap, 'name', where) ?? '' };
    const cfg = ap.config;
    if (cfg !== undefined) {
      if (!isPlainMap(cfg)) return this.bad(`${where}.config is not a mapping`);
      const out: Record<string, string> = {};
      for (const k of Object.keys(cfg)) {
        const v = this.str(cfg, k, `${where}.config`);
        if (v !== undefined) out[k] = v;
      }
      p.config = out;
    }
    return p;
  }

  context({ name, body, where }: NamedEntry): KubeContext {
    const cluster = this.str(body, 'cluster', where);
    if (!cluster) return this.bad(`${where}.cluster is missing`);
    const c: KubeContext = { name, cluster, user: this.str(body, 'user', where) ?? '' };
    set(c, 'namespace', this.str(body, 'namespace', where));
    return c;
  }
}

/** Sets an optional field only when the kubeconfig gave it (absent stays absent, not `undefined`). */
function set<T extends object, K extends keyof T>(o: T, k: K, v: T[K] | undefined): void {
  if (v !== undefined) o[k] = v;
}

// ------------------------------------------------------------------ files

function fileExists(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function hostPort(host: string, port: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * File contents read again when the file changes (rotated tokens and certificates): one `stat` per use,
 * and a fresh read at least every minute whatever the stat says (client-go re-reads token files as often).
 */
class FileCache {
  private readonly entries = new Map<string, { stamp: string; data: Buffer; readAt: number }>();

  read(path: string): Buffer {
    let stamp: string;
    try {
      const s = statSync(path);
      stamp = `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
    } catch (e) {
      throw new KubeConfigError('invalid', `cannot read ${path}: ${(e as Error).message}`);
    }
    const now = Date.now();
    const hit = this.entries.get(path);
    if (hit && hit.stamp === stamp && now - hit.readAt < 60_000) return hit.data;
    let data: Buffer;
    try {
      data = readFileSync(path);
    } catch (e) {
      throw new KubeConfigError('invalid', `cannot read ${path}: ${(e as Error).message}`);
    }
    this.entries.set(path, { stamp, data, readAt: now });
    return data;
  }
}

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type https from 'node:https';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { KubeConfig, KubeConfigError } from '../../../src/kube/kubeconfig.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const tmp = () => mkdtempSync(join(tmpdir(), 'kgraph-kubeconfig-'));

function config(o: { clusters?: string; users?: string; contexts?: string; current?: string }): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    o.clusters ? `clusters:\n${o.clusters}` : '',
    o.users ? `users:\n${o.users}` : '',
    o.contexts ? `contexts:\n${o.contexts}` : '',
    o.current !== undefined ? `current-context: ${o.current}` : '',
  ]
    .filter((l) => l !== '')
    .join('\n');
}

const cluster = (name: string, server: string, extra = '') =>
  `- name: ${name}\n  cluster:\n    server: ${server}\n${extra}`;
const user = (name: string, body: string) => `- name: ${name}\n  user:\n${body}`;
const context = (name: string, c: string, u: string) =>
  `- name: ${name}\n  context:\n    cluster: ${c}\n    user: ${u}\n`;

async function applied(kc: KubeConfig): Promise<https.RequestOptions & { headers: Record<string, unknown> }> {
  const opts: https.RequestOptions = { method: 'GET', headers: { Accept: 'application/json' } };
  await kc.applyToHTTPSOptions(opts);
  return opts as https.RequestOptions & { headers: Record<string, unknown> };
}

describe('kubeconfig: loading', () => {
  it('reads clusters, users and contexts with the kubeconfig field names, scalars as written', async () => {
    const kc = new KubeConfig();
    kc.loadFromString(
      config({
        clusters: cluster(
          'c',
          'https://example.test:6443',
          `    certificate-authority-data: ${b64('CA')}\n    tls-server-name: api.internal\n    insecure-skip-tls-verify: yes\n`,
        ),
        users: user(
          'u',
          `    token: 0123\n    client-certificate-data: ${b64('CERT')}\n    client-key-data: ${b64('KEY')}\n    as: alice\n    as-groups: [devs, ops]\n`,
        ),
        contexts: `${context('x', 'c', 'u')}    namespace: team\n`,
        current: 'x',
      }),
    );
    assert.equal(kc.getCurrentContext(), 'x');
    assert.deepEqual(kc.getCurrentCluster(), {
      name: 'c',
      server: 'https://example.test:6443',
      'certificate-authority-data': b64('CA'),
      'tls-server-name': 'api.internal',
      'insecure-skip-tls-verify': true,
    });
    // `0123` is a string field: its text, not the number 123 a YAML 1.2 reader would make of it.
    assert.equal(kc.getCurrentUser()?.token, '0123');
    assert.deepEqual(kc.getContextObject('x'), { name: 'x', cluster: 'c', user: 'u', namespace: 'team' });
    assert.deepEqual(
      kc.getContexts().map((c) => c.name),
      ['x'],
    );

    const o = await applied(kc);
    assert.equal(o.headers.Authorization, 'Bearer 0123');
    assert.equal(o.headers['Impersonate-User'], 'alice');
    assert.deepEqual(o.headers['Impersonate-Group'], ['devs', 'ops']);
    assert.equal(o.headers.Accept, 'application/json', 'existing headers are kept');
    assert.equal(o.rejectUnauthorized, false);
    assert.equal(o.servername, 'api.internal');
    assert.equal(String(o.ca), 'CA');
    assert.equal(String(o.cert), 'CERT');
    assert.equal(String(o.key), 'KEY');
  });

  it('basic auth, and no credentials for a context without a user', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://h' }],
      users: [{ name: 'u', username: 'admin', password: 's3cret' }],
      contexts: [
        { name: 'basic', cluster: 'c', user: 'u' },
        { name: 'anon', cluster: 'c', user: '' },
      ],
      currentContext: 'basic',
    });
    const o = await applied(kc);
    assert.equal(o.auth, 'admin:s3cret');
    assert.equal(o.headers.Authorization, undefined);
    kc.setCurrentContext('anon');
    const a = await applied(kc);
    assert.equal(a.auth, undefined);
    assert.equal(a.headers.Authorization, undefined);
    assert.equal(a.rejectUnauthorized, undefined, 'TLS is verified unless the cluster says otherwise');
  });

  it('exports kubeconfig that loads back to the same entries, in client-node too', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://h:1', 'certificate-authority-data': b64('CA') }],
      users: [{ name: 'u', token: 'tok' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u', namespace: 'n' }],
      currentContext: 'x',
    });
    const again = new KubeConfig();
    again.loadFromString(kc.exportConfig());
    assert.deepEqual(
      {
        clusters: again.clusters,
        users: again.users,
        contexts: again.contexts,
        current: again.currentContext,
      },
      { clusters: kc.clusters, users: kc.users, contexts: kc.contexts, current: 'x' },
    );
    const { KubeConfig: ClientNode } = await import('@kubernetes/client-node');
    const theirs = new ClientNode();
    theirs.loadFromString(kc.exportConfig());
    assert.equal(theirs.getCurrentCluster()?.caData, b64('CA'));
    assert.equal(theirs.getCurrentUser()?.token, 'tok');
  });

  it('resolves file paths against the kubeconfig file directory, and reads the files', async () => {
    const dir = tmp();
    mkdirSync(join(dir, 'certs'));
    writeFileSync(join(dir, 'ca.pem'), 'CA-FILE');
    writeFileSync(join(dir, 'certs', 'c.pem'), 'CERT-FILE');
    writeFileSync(join(dir, 'certs', 'k.pem'), 'KEY-FILE');
    writeFileSync(join(dir, 'tok'), 'file-token\n');
    writeFileSync(
      join(dir, 'config'),
      config({
        clusters: cluster('c', 'https://h', '    certificate-authority: ca.pem\n'),
        users: `${user('u', '    client-certificate: certs/c.pem\n    client-key: ./certs/k.pem\n    tokenFile: tok\n')}${user('ex', '    exec:\n      command: ./bin/plugin\n')}${user('onpath', '    exec:\n      command: gke-auth-plugin\n')}`,
        contexts: context('x', 'c', 'u'),
        current: 'x',
      }),
    );
    const kc = new KubeConfig();
    kc.loadFromFile(join(dir, 'config'));
    assert.equal(kc.getCurrentCluster()?.['certificate-authority'], join(dir, 'ca.pem'));
    const u = kc.getCurrentUser();
    assert.equal(u?.['client-certificate'], join(dir, 'certs', 'c.pem'));
    assert.equal(u?.['client-key'], join(dir, 'certs', 'k.pem'));
    assert.equal(u?.tokenFile, join(dir, 'tok'));
    // A command with a directory in it is relative to the kubeconfig; a bare name is looked up on PATH.
    assert.equal(kc.getUser('ex')?.exec?.command, join(dir, 'bin', 'plugin'));
    assert.equal(kc.getUser('onpath')?.exec?.command, 'gke-auth-plugin');

    const o = await applied(kc);
    assert.equal(String(o.ca), 'CA-FILE');
    assert.equal(String(o.cert), 'CERT-FILE');
    assert.equal(String(o.key), 'KEY-FILE');
    assert.equal(o.headers.Authorization, 'Bearer file-token');
  });

  it('reads a token file again when it changes (rotated tokens)', async () => {
    const dir = tmp();
    const tok = join(dir, 'token');
    writeFileSync(tok, 'first');
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://h' }],
      users: [{ name: 'u', token: 'inline', tokenFile: tok }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    assert.equal(
      (await applied(kc)).headers.Authorization,
      'Bearer first',
      'the file wins over the inline token',
    );
    writeFileSync(tok, 'second-token');
    assert.equal((await applied(kc)).headers.Authorization, 'Bearer second-token');
  });
});

describe('kubeconfig: the default chain', () => {
  const file = (dir: string, name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  it('merges the KUBECONFIG files as kubectl: the first to name an entry wins, the first current context', () => {
    const dir = tmp();
    const a = file(
      dir,
      'a',
      config({
        clusters: cluster('shared', 'https://from-a'),
        users: user('ua', '    token: a\n'),
        contexts: context('ctx-a', 'shared', 'ua'),
      }),
    );
    const b = file(
      dir,
      'b',
      config({
        clusters: `${cluster('shared', 'https://from-b')}${cluster('only-b', 'https://only-b')}`,
        users: user('ub', '    token: b\n'),
        contexts: `${context('ctx-a', 'only-b', 'ub')}${context('ctx-b', 'shared', 'ub')}`,
        current: 'ctx-b',
      }),
    );
    const c = file(dir, 'c', config({ clusters: cluster('c', 'https://c'), current: 'ctx-a' }));
    const kc = new KubeConfig();
    kc.loadFromDefault({
      env: { KUBECONFIG: [a, join(dir, 'missing'), '', b, c].join(delimiter) },
      homeDir: dir,
    });
    assert.deepEqual(kc.files, [a, b, c], 'missing files are skipped');
    assert.equal(kc.getCurrentContext(), 'ctx-b', 'the first file that sets current-context');
    assert.equal(kc.getCluster('shared')?.server, 'https://from-a');
    assert.equal(kc.getCluster('only-b')?.server, 'https://only-b');
    assert.deepEqual(kc.getContextObject('ctx-a'), { name: 'ctx-a', cluster: 'shared', user: 'ua' });
    assert.equal(kc.getCurrentCluster()?.server, 'https://from-a');
    assert.equal(kc.getCurrentUser()?.token, 'b');
    assert.deepEqual(
      kc.contexts.map((x) => x.name),
      ['ctx-a', 'ctx-b'],
    );
  });

  it('KUBECONFIG naming only missing files is an error, not an empty config', () => {
    const dir = tmp();
    const kc = new KubeConfig();
    assert.throws(
      () => kc.loadFromDefault({ env: { KUBECONFIG: join(dir, 'nope') }, homeDir: dir }),
      (e: unknown) => e instanceof KubeConfigError && e.problem === 'no-config' && /nope/.test(e.message),
    );
  });

  it('uses ~/.kube/config without KUBECONFIG', () => {
    const home = tmp();
    mkdirSync(join(home, '.kube'));
    file(
      join(home, '.kube'),
      'config',
      config({ clusters: cluster('h', 'https://home'), contexts: context('h', 'h', ''), current: 'h' }),
    );
    const kc = new KubeConfig();
    kc.loadFromDefault({
      env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
      homeDir: home,
    });
    assert.equal(kc.getCurrentCluster()?.server, 'https://home', '~/.kube/config comes before in-cluster');
  });

  it('uses the in-cluster service account when KUBERNETES_SERVICE_HOST is set', async () => {
    const home = tmp();
    const sa = tmp();
    writeFileSync(join(sa, 'token'), 'sa-token-1\n');
    writeFileSync(join(sa, 'ca.crt'), 'CLUSTER-CA');
    writeFileSync(join(sa, 'namespace'), 'kgraph-system');
    const kc = new KubeConfig();
    kc.loadFromDefault({
      env: { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' },
      homeDir: home,
      serviceAccountDir: sa,
    });
    assert.equal(kc.getCurrentCluster()?.server, 'https://10.96.0.1:443');
    assert.equal(kc.getCurrentContextObject()?.namespace, 'kgraph-system');
    const o = await applied(kc);
    assert.equal(o.headers.Authorization, 'Bearer sa-token-1');
    assert.equal(String(o.ca), 'CLUSTER-CA');
    writeFileSync(join(sa, 'token'), 'sa-token-rotated\n');
    assert.equal((await applied(kc)).headers.Authorization, 'Bearer sa-token-rotated');

    const v6 = new KubeConfig();
    v6.loadFromCluster({
      env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' },
      dir: sa,
    });
    assert.equal(v6.getCurrentCluster()?.server, 'https://[fd00::1]:443');
  });

  it('finds nothing: a typed error instead of an unauthenticated localhost', () => {
    const kc = new KubeConfig();
    assert.throws(
      () => kc.loadFromDefault({ env: {}, homeDir: tmp() }),
      (e: unknown) => e instanceof KubeConfigError && e.code === 'KG6011' && e.problem === 'no-config',
    );
  });
});

describe('kubeconfig: errors', () => {
  const base = () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://h' }],
      users: [{ name: 'u', token: 't' }],
      contexts: [
        { name: 'ok', cluster: 'c', user: 'u' },
        { name: 'no-cluster', cluster: 'gone', user: 'u' },
        { name: 'no-user', cluster: 'c', user: 'nobody' },
      ],
      currentContext: 'ok',
    });
    return kc;
  };

  it('a missing context, cluster or user is a KubeConfigError that names it', async () => {
    const kc = base();
    assert.throws(
      () => kc.setCurrentContext('nope'),
      (e: unknown) =>
        e instanceof KubeConfigError &&
        e.problem === 'unknown-context' &&
        e.code === 'KG6012' &&
        /"nope".*ok, no-cluster, no-user/.test(e.message),
    );
    assert.equal(kc.getCurrentContext(), 'ok', 'a failed switch keeps the current context');

    kc.setCurrentContext('no-cluster');
    assert.equal(kc.getCurrentCluster(), undefined);
    await assert.rejects(
      applied(kc),
      (e: unknown) =>
        e instanceof KubeConfigError && e.problem === 'unknown-cluster' && /"gone"/.test(e.message),
    );
    kc.setCurrentContext('no-user');
    await assert.rejects(
      applied(kc),
      (e: unknown) =>
        e instanceof KubeConfigError && e.problem === 'unknown-user' && /"nobody"/.test(e.message),
    );

    const none = new KubeConfig();
    none.loadFromString(config({ clusters: cluster('c', 'https://h') }));
    await assert.rejects(
      applied(none),
      (e: unknown) => e instanceof KubeConfigError && e.problem === 'no-current-context',
    );
  });

  it('malformed kubeconfigs name the source and the entry', () => {
    const load = (text: string) => () => new KubeConfig().loadFromString(text, { source: 'my.yaml' });
    const invalid = (re: RegExp) => (e: unknown) =>
      e instanceof KubeConfigError && e.problem === 'invalid' && e.code === 'KG6010' && re.test(e.message);
    assert.throws(load('clusters: [ {'), invalid(/^my\.yaml: not YAML/));
    assert.throws(
      load(config({ clusters: '- name: c\n  cluster: {}\n' })),
      invalid(/clusters\[0\]\.cluster\.server is missing/),
    );
    assert.throws(
      load(config({ clusters: `${cluster('c', 'https://a')}${cluster('c', 'https://b')}` })),
      invalid(/"c" appears twice/),
    );
    assert.throws(
      load(config({ clusters: cluster('c', 'https://a', '    insecure-skip-tls-verify: maybe\n') })),
      invalid(/not a boolean: maybe/),
    );
    assert.throws(() => new KubeConfig().loadFromFile(join(tmp(), 'absent')), invalid(/^ENOENT.*absent/));
  });

  it('a token file that went away fails the request with the path', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://h' }],
      users: [{ name: 'u', tokenFile: '/nonexistent/kgraph-token' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    await assert.rejects(applied(kc), /\/nonexistent\/kgraph-token/);
  });
});

describe('kubeconfig: exec plugins through client-node, loaded only for them', () => {
  it('a plain config never loads client-node; an exec user loads it and gets the plugin token', () => {
    const dir = tmp();
    const log = join(dir, 'loaded.log');
    writeFileSync(log, '');
    // A resolve hook that records every module of client-node this process resolves.
    const hooks = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (r.url.includes('/@kubernetes/client-node/')) appendFileSync(${JSON.stringify(log)}, r.url + '\\n');
  return r;
}`;
    writeFileSync(join(dir, 'hooks.mjs'), hooks);
    writeFileSync(
      join(dir, 'register.mjs'),
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
    );
    writeFileSync(
      join(dir, 'plugin.mjs'),
      `process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'from-exec-plugin' } }));\n`,
    );
    const src = pathToFileURL(join(import.meta.dirname, '../../../src/kube/kubeconfig.ts')).href;
    writeFileSync(
      join(dir, 'child.mts'),
      `import { readFileSync } from 'node:fs';
import { KubeConfig } from ${JSON.stringify(src)};
const loaded = () => readFileSync(${JSON.stringify(log)}, 'utf8').split('\\n').filter(Boolean).length;
const out: Record<string, unknown> = {};
const kc = new KubeConfig();
kc.loadFromString(${JSON.stringify(
        config({
          clusters: cluster('c', 'https://h', `    certificate-authority-data: ${b64('CA')}\n`),
          users: `${user('plain', '    token: t\n')}${user('ex', `    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${process.execPath}\n      args: [${JSON.stringify(join(dir, 'plugin.mjs'))}]\n      interactiveMode: Never\n`)}`,
          contexts: `${context('plain', 'c', 'plain')}${context('ex', 'c', 'ex')}`,
          current: 'plain',
        }),
      )});
const o: { headers?: Record<string, unknown> } = {};
await kc.applyToHTTPSOptions(o);
out.plainAuth = o.headers?.Authorization;
out.afterPlain = loaded();
kc.setCurrentContext('ex');
const e: { headers?: Record<string, unknown>; ca?: unknown } = {};
await kc.applyToHTTPSOptions(e);
out.execAuth = e.headers?.Authorization;
out.execCa = String(e.ca);
out.afterExec = loaded();
process.stdout.write(JSON.stringify(out));
`,
    );
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--import', join(dir, 'register.mjs'), join(dir, 'child.mts')],
      {
        encoding: 'utf8',
        cwd: join(import.meta.dirname, '../../..'),
        timeout: 60_000,
      },
    );
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.equal(out.plainAuth, 'Bearer t');
    assert.equal(
      out.afterPlain,
      0,
      `client-node was loaded for a plain config: ${readFileSync(log, 'utf8')}`,
    );
    assert.equal(out.execAuth, 'Bearer from-exec-plugin');
    assert.equal(out.execCa, 'CA', 'the delegate applies the cluster TLS too');
    assert.ok(Number(out.afterExec) > 0, 'the exec user loaded client-node (the hook sees it)');
  });
});

describe('kubeconfig: nothing in src/ loads client-node eagerly', () => {
  it('no source file imports @kubernetes/client-node but for types (kubeconfig.ts imports it on first use)', () => {
    const src = join(import.meta.dirname, '../../../src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const eager = files.filter((f) =>
      /^\s*(import|export)\s+(?!type\b)[^;]*from\s+'@kubernetes\/client-node[^']*'/m.test(
        readFileSync(join(src, f), 'utf8'),
      ),
    );
    assert.deepEqual(
      eager,
      [],
      'these import client-node at load time (an import of its index costs ~75 MiB RSS)',
    );
  });
});

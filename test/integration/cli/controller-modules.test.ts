/**
 * `kgraph controller` loads only what it runs: with --no-graphs none of the Graph
 * controller's modules, with --no-rgds none of the RGD controller's, the planes controller only with
 * --planes, and pino-pretty only for text logs. The real binary on this checkout's sources against the
 * shared control plane; a module resolution hook reports every module resolved.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { freePort, waitReadyz } from '../../support/controllerProcess.ts';
import { sharedControlPlane } from '../../support/controlPlane.ts';
import { testNamespace } from '../../support/kube.ts';
import { ensureCrd } from '../graph/support.ts';
import { ensureRgdCrd } from '../rgd/support.ts';

const root = resolve(import.meta.dirname, '../../..');
const src = pathToFileURL(join(root, 'src')).href;

describe('kgraph controller module loading', () => {
  let kubeconfig: string;
  let ns: string;
  let dir: string;

  before(async () => {
    await ensureCrd();
    await ensureRgdCrd();
    kubeconfig = (await sharedControlPlane()).kubeconfigPath;
    ns = await testNamespace('modules');
    dir = mkdtempSync(join(tmpdir(), 'kgraph-modules-'));
    const hook = join(dir, 'hook.mjs');
    writeFileSync(
      hook,
      `export async function resolve(s, c, next) {
        const r = await next(s, c);
        process.stderr.write('RESOLVED ' + r.url + '\\n');
        return r;
      }`,
    );
    writeFileSync(
      join(dir, 'register.mjs'),
      `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hook).href)});`,
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs the controller until it is ready, stops it; the modules resolved (src/ relative, or package URLs). */
  async function modulesOf(...extra: string[]): Promise<string[]> {
    const port = await freePort();
    const proc = spawn(
      process.execPath,
      [
        '--import',
        join(dir, 'register.mjs'),
        join(root, 'bin', 'kgraph.js'),
        'controller',
        '--kubeconfig',
        kubeconfig,
        '--namespace',
        ns,
        '--no-install-crd',
        '--metrics-addr',
        `127.0.0.1:${port}`,
        '--health-addr',
        `127.0.0.1:${port}`,
        '--log-level',
        'warn',
        ...extra,
      ],
      { env: { ...process.env, KGRAPH_SOURCES: '1' }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    proc.stderr?.on('data', (b: Buffer) => {
      err += b.toString();
    });
    const exited = new Promise((r) => proc.once('exit', r));
    try {
      await waitReadyz(port, 'controller ready', 120_000);
    } finally {
      proc.kill('SIGTERM');
      await exited;
    }
    return [...err.matchAll(/^RESOLVED (\S+)$/gm)].map((m) =>
      (m[1] as string).startsWith(src) ? (m[1] as string).slice(src.length + 1) : (m[1] as string),
    );
  }

  const graphSide = ['controller/graph/controller.ts', 'controller/graph/reconciler.ts'];
  const rgdSide = [
    'controller/rgd/controller.ts',
    'controller/rgd/registrar.ts',
    'controller/rgd/instanceServer.ts',
  ];
  const planes = (m: string) => m.startsWith('controller/planes/');

  it('--no-graphs: the RGD controller only, no pino-pretty for JSON logs', async () => {
    const loaded = await modulesOf('--no-graphs', '--log-format', 'json');
    for (const m of rgdSide) assert.ok(loaded.includes(m), `${m} is loaded`);
    for (const m of graphSide) assert.ok(!loaded.includes(m), `${m} is not loaded`);
    assert.deepEqual(loaded.filter(planes), []);
    assert.deepEqual(
      loaded.filter((m) => m.includes('pino-pretty')),
      [],
    );
  });

  it('--no-rgds: the Graph controller only; text logs load pino-pretty', async () => {
    const loaded = await modulesOf('--no-rgds', '--log-format', 'text');
    for (const m of graphSide) assert.ok(loaded.includes(m), `${m} is loaded`);
    for (const m of rgdSide) assert.ok(!loaded.includes(m), `${m} is not loaded`);
    assert.deepEqual(loaded.filter(planes), []);
    assert.ok(
      loaded.some((m) => m.includes('pino-pretty')),
      'pino-pretty is loaded for text logs',
    );
  });
});

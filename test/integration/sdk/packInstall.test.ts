/**
 * The SDK outside this repository: `npm pack` the repository (its
 * `prepare` script builds dist/), install the tarball as a user would, and in a fresh ESM project
 * (`"type": "module"`) and a fresh CommonJS one (`npm init -y`) compile a package with the
 * consumer's own `tsc` against the shipped `.d.ts`, then run the installed `kgraph synth` on it.
 * The CommonJS project also synthesizes its TypeScript source directly: tsx's require hook then
 * loads a second, CommonJS copy of the SDK, which must share the one marker registry
 * (src/sdk/registry.ts), or `.out.name` and `targetPort: 'http'` are misread.
 *
 * One `npm install` (from the npm cache, `--prefer-offline`) serves both projects: they sit side by
 * side under one folder whose node_modules holds kgraph and typescript, as Node resolves upwards.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import YAML from 'yaml';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '../../..');
const fixture = readFileSync(join(import.meta.dirname, 'fixtures/consumer/app.ts.txt'), 'utf8');
const TYPESCRIPT = (
  JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  }
).devDependencies.typescript;

// The consumer runs the shipped (compiled) CLI, never our sources.
const env = { ...process.env, KGRAPH_SOURCES: '0', NO_COLOR: '1' };
const sh = (cmd: string, args: string[], cwd: string, timeout = 180_000) =>
  run(cmd, args, { cwd, env, timeout, maxBuffer: 64 * 1024 * 1024 });

interface Obj {
  kind: string;
  metadata: { name: string };
  spec?: {
    ports?: { targetPort?: unknown }[];
    template?: { spec: { containers: { env?: { name: string; value?: unknown }[] }[] } };
  };
}
const objectsOf = (yaml: string): Obj[] =>
  YAML.parseAllDocuments(yaml)
    .map((d) => d.toJSON() as Obj | null)
    .filter((o): o is Obj => o !== null);

function assertOrders(yaml: string): void {
  const objs = objectsOf(yaml);
  assert.deepEqual(objs.map((o) => o.kind).sort(), ['ConfigMap', 'Deployment', 'Namespace', 'Service']);
  const deployment = objs.find((o) => o.kind === 'Deployment');
  assert.deepEqual(deployment?.spec?.template?.spec.containers[0]?.env, [
    { name: 'CONFIG', value: 'orders-config' },
  ]);
  assert.equal(objs.find((o) => o.kind === 'Service')?.spec?.ports?.[0]?.targetPort, 'http');
}

describe('the packed kgraph package in fresh consumer projects', {
  timeout: 300_000,
  concurrency: true,
}, () => {
  let dir: string;
  let esm: string;
  let cjs: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kgraph-pack-'));
    const { stdout } = await sh('npm', ['pack', '--json', '--pack-destination', dir], repo, 300_000);
    const packed = JSON.parse(stdout.slice(stdout.indexOf('['))) as {
      filename: string;
      files: { path: string }[];
    }[];
    const tarball = join(dir, packed[0]?.filename ?? '');
    const files = packed[0]?.files.map((f) => f.path) ?? [];
    // Compiled JavaScript and declarations ship; our TypeScript sources do not.
    assert.ok(files.includes('dist/cli/main.js') && files.includes('dist/sdk/index.d.ts'), 'dist/ is packed');
    assert.ok(!files.some((f) => f.startsWith('src/')), 'no sources in the package');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumers', private: true }));
    await sh(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, `typescript@${TYPESCRIPT}`],
      dir,
    );
    esm = join(dir, 'esm');
    cjs = join(dir, 'cjs');
    for (const p of [esm, cjs]) mkdirSync(join(p, 'src'), { recursive: true });
    writeFileSync(join(esm, 'package.json'), JSON.stringify({ name: 'esm-consumer', type: 'module' }));
    await sh('npm', ['init', '-y'], cjs);
    const tsconfig = (extra: object) =>
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          target: 'es2022',
          strict: true,
          outDir: 'dist',
          types: [],
          ...extra,
        },
        include: ['src'],
      });
    // tsc --init's defaults for an ES module project; a CommonJS one without verbatimModuleSyntax (which
    // forbids `import` in a CommonJS file). Neither skips library checks: the shipped .d.ts must type-check.
    writeFileSync(
      join(esm, 'tsconfig.json'),
      tsconfig({ verbatimModuleSyntax: true, isolatedModules: true }),
    );
    writeFileSync(join(cjs, 'tsconfig.json'), tsconfig({}));
    for (const p of [esm, cjs]) writeFileSync(join(p, 'src/app.ts'), fixture);
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it("compiles with the consumer's tsc and synthesizes in an ES module project", async () => {
    await sh('npx', ['tsc', '-p', '.'], esm);
    assert.match(readFileSync(join(esm, 'dist/app.js'), 'utf8'), /from 'kgraph\/sdk'/);
    const { stdout } = await sh('npx', ['kgraph', 'synth', 'dist/app.js'], esm);
    assertOrders(stdout);
    // The shipped declarations carry the Kubernetes API types: the consumer's tsc rejects a wrong type.
    writeFileSync(join(esm, 'src/app.ts'), fixture.replace('replicas: 2', "replicas: 'two'"));
    const typed = await sh('npx', ['tsc', '-p', '.', '--noEmit'], esm).then(
      () => assert.fail("tsc accepted replicas: 'two'"),
      (e: { stdout?: string }) => e.stdout ?? '',
    );
    assert.match(
      typed,
      /src\/app\.ts\(\d+,\d+\): error TS2322: Type 'string' is not assignable to type 'Authored<number/,
    );
  });

  it("compiles with the consumer's tsc and synthesizes in a CommonJS project, compiled and from source", async () => {
    assert.equal(
      (JSON.parse(readFileSync(join(cjs, 'package.json'), 'utf8')) as { type?: string }).type,
      'commonjs',
    );
    await sh('npx', ['tsc', '-p', '.'], cjs);
    assert.match(readFileSync(join(cjs, 'dist/app.js'), 'utf8'), /require\("kgraph\/sdk"\)/);
    assertOrders((await sh('npx', ['kgraph', 'synth', 'dist/app.js'], cjs)).stdout);
    // From source: tsx loads a CommonJS copy of the SDK beside the CLI's ESM one.
    assertOrders((await sh('npx', ['kgraph', 'synth', 'src/app.ts'], cjs)).stdout);
  });
});

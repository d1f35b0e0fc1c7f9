/**
 * The chart renderer `kgraph synth` and `kgraph deploy` hand to the SDK: tools/helm-render, a small binary
 * built from Helm's own Go library (the code path of `helm template`), run synchronously because a
 * package's `build` is synchronous. The binary is built and cached by `tools/helm-render/build.sh`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChartRenderer, ChartRenderRequest, RenderedChart } from '../sdk/chart.ts';
import { SdkCode, SdkError } from '../sdk/errors.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** `KGRAPH_HELM_RENDER`, else the cached build in `.cache/bin`. */
export function helmRenderBinary(): string {
  return process.env.KGRAPH_HELM_RENDER ?? join(repoRoot, '.cache', 'bin', 'helm-render');
}

/** Builds (or finds cached) tools/helm-render and returns its path. A cold build takes minutes. */
export function buildHelmRender(): string {
  return execFileSync('bash', [join(repoRoot, 'tools', 'helm-render', 'build.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

function args(mode: 'json' | 'template', req: ChartRenderRequest, valueFiles: readonly string[]): string[] {
  return [
    mode,
    '--name',
    req.releaseName,
    '--namespace',
    req.namespace,
    ...valueFiles.flatMap((f) => ['--values', f]),
    ...req.set.flatMap((s) => ['--set', s]),
    ...(req.includeCrds ? ['--include-crds'] : []),
    ...(req.skipTests ? ['--skip-tests'] : []),
    ...(req.noHooks ? ['--no-hooks'] : []),
    ...(req.kubeVersion ? ['--kube-version', req.kubeVersion] : []),
    ...req.apiVersions.flatMap((v) => ['--api-versions', v]),
    resolve(req.chart),
  ];
}

/** Runs the binary; value layers go through temporary JSON files after the values files. */
export function runHelmRender(
  mode: 'json' | 'template',
  req: ChartRenderRequest,
  binary = helmRenderBinary(),
): string {
  if (!existsSync(binary)) {
    throw new SdkError(
      SdkCode.chart,
      `helm.importChart ${req.chart}: ${binary} is not built; run bash tools/helm-render/build.sh (or npm run helm-render:build)`,
    );
  }
  const dir = req.values.length > 0 ? mkdtempSync(join(tmpdir(), 'kgraph-values-')) : undefined;
  try {
    const layers = req.values.map((v, i) => {
      const f = join(dir!, `values-${i}.json`);
      writeFileSync(f, JSON.stringify(v));
      return f;
    });
    return execFileSync(binary, args(mode, req, [...req.valuesFiles.map((f) => resolve(f)), ...layers]), {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (e) {
    if (e instanceof SdkError) throw e;
    const stderr = String((e as { stderr?: unknown }).stderr ?? '').trim();
    throw new SdkError(SdkCode.chart, `helm.importChart ${req.chart}: ${stderr || String(e)}`);
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

export function binaryChartRenderer(binary = helmRenderBinary()): ChartRenderer {
  return (req) => JSON.parse(runHelmRender('json', req, binary)) as RenderedChart;
}

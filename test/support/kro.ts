/**
 * kro's own controller in a test: the binary bench/vs-kro/kro/build.sh builds unchanged from the Go
 * module proxy (cached by content hash; .ci/run builds it before the tests), and kro's CRDs from the
 * same released module.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../src/kube/index.ts';
import type { RestClient } from '../../src/kube/rest.ts';
import { repoRoot } from '../../src/localplane/localControlPlane.ts';
import { eventually } from './kube.ts';

const kroModule = join(repoRoot, 'bench', 'vs-kro', 'kro');

/** The path of kro's controller binary (built on the first call, minutes cold, a cache hit after). */
export function kroBinary(): string {
  return execFileSync('bash', [join(kroModule, 'build.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

/** Applies kro's CRDs (ResourceGraphDefinition, GraphRevision) from its module and waits until established. */
export async function installKroCrds(admin: RestClient): Promise<void> {
  const moduleDir = execFileSync('go', ['list', '-m', '-f', '{{.Dir}}', 'github.com/kubernetes-sigs/kro'], {
    cwd: kroModule,
    encoding: 'utf8',
  }).trim();
  const dir = join(moduleDir, 'helm', 'crds');
  const names: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml')))
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      const crd = doc.toJS() as KubeObject | null;
      if (!crd) continue;
      await admin.apply(crd, { fieldManager: 'kro-install', force: true });
      names.push(crd.metadata.name ?? '');
    }
  for (const name of names)
    await eventually(
      `kro's CRD ${name} established`,
      async () => {
        const crd = await admin.getOrUndefined({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          name,
        });
        const conds = (crd?.status as { conditions?: { type: string; status: string }[] } | undefined)
          ?.conditions;
        return conds?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
      },
      60_000,
    );
}

/** Starts kro's controller against a kubeconfig, metrics and probes on the given ports, errors only logged. */
export function spawnKro(
  binary: string,
  kubeconfig: string,
  metricsPort: number,
  healthPort: number,
): ChildProcess {
  return spawn(
    binary,
    [
      `--metrics-bind-address=127.0.0.1:${metricsPort}`,
      `--health-probe-bind-address=127.0.0.1:${healthPort}`,
      '--zap-devel=false',
      '--zap-log-level=error',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, KUBECONFIG: kubeconfig } },
  );
}

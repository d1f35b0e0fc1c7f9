// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kro ${…} expressions, not JS templates
/**
 * The workload of bench/workload.ts as one ResourceGraphDefinition that kro and kgraph both accept
 * unchanged: per instance a ConfigMap, a Secret, a ServiceAccount, a ClusterIP Service and a second
 * ConfigMap reading the first through CEL (two apply layers), all named after the instance.
 */
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeObject, RestClient } from '../../src/kube/index.ts';

export const RGD_NAME = 'benchapp';
export const INSTANCE_API = { apiVersion: 'kro.run/v1alpha1', kind: 'BenchApp' } as const;

export function benchRgd(): KubeObject {
  const meta = (role: string) => ({ name: `\${schema.metadata.name}-${role}` });
  return {
    apiVersion: 'kro.run/v1alpha1',
    kind: 'ResourceGraphDefinition',
    metadata: { name: RGD_NAME },
    spec: {
      schema: {
        apiVersion: 'v1alpha1',
        kind: INSTANCE_API.kind,
        spec: { token: 'string | default="x"' },
        status: { derived: '${derived.data.from}' },
      },
      resources: [
        {
          id: 'base',
          template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('base'), data: { v: '1' } },
        },
        {
          id: 'secret',
          template: {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: meta('secret'),
            stringData: { token: '${schema.spec.token}' },
          },
        },
        { id: 'sa', template: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta('sa') } },
        {
          id: 'svc',
          template: {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: meta('svc'),
            spec: {
              type: 'ClusterIP',
              selector: { app: '${schema.metadata.name}' },
              ports: [{ port: 80, targetPort: 8080 }],
            },
          },
        },
        {
          id: 'derived',
          template: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: meta('derived'),
            data: { from: '${base.metadata.name}' },
          },
        },
      ],
    },
  };
}

export function benchInstance(i: number, namespace: string): KubeObject {
  return { ...INSTANCE_API, metadata: { name: `app${i}`, namespace }, spec: {} };
}

/** kro and kgraph both report a converged instance as `state: ACTIVE` with `Ready=True`. */
export function instanceActive(o: KubeObject): boolean {
  const status = o.status as { state?: string; conditions?: { type: string; status: string }[] } | undefined;
  return (
    status?.state === 'ACTIVE' &&
    (status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')
  );
}

/** Applies the benchmark's RGD and waits until its state is Active; fails if `proc` (its controller, `who`) exits. */
export async function applyBenchRgdUntilActive(
  admin: RestClient,
  proc: ChildProcess,
  who: string,
): Promise<void> {
  await admin.apply(benchRgd(), { fieldManager: 'bench', force: true });
  for (;;) {
    const r = await admin.getOrUndefined({
      apiVersion: 'kro.run/v1alpha1',
      kind: 'ResourceGraphDefinition',
      name: RGD_NAME,
    });
    if ((r?.status as { state?: string } | undefined)?.state === 'Active') return;
    if (proc.exitCode !== null) throw new Error(`${who} exited with code ${proc.exitCode}`);
    await sleep(100);
  }
}

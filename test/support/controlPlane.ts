/**
 * The integration tests' view of the control plane: the one started by
 * test/support/runTests.ts for the whole run (KGRAPH_TEST_KUBECONFIG), or, when a
 * file runs on its own under plain `node --test`, one started for this process.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { startLocalControlPlane } from '../../src/kube/localControlPlane.ts';

export interface TestControlPlane {
  server: string;
  kubeconfigPath: string;
  kc: KubeConfig;
  logFile: string | undefined;
}

let shared: Promise<TestControlPlane> | undefined;

export function sharedControlPlane(): Promise<TestControlPlane> {
  shared ??= (async () => {
    let kubeconfigPath = process.env.KGRAPH_TEST_KUBECONFIG;
    let logFile = process.env.KGRAPH_TEST_LOG;
    if (!kubeconfigPath) {
      const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-testenv-'));
      // The child exits when this process's end of its stdin closes, i.e. when we exit.
      const plane = await startLocalControlPlane({ dataDir, ephemeral: true, withControllers: true });
      plane.unref();
      kubeconfigPath = plane.kubeconfig;
      logFile = plane.logFile;
    }
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfigPath);
    return { server: kc.getCurrentCluster()?.server ?? '', kubeconfigPath, kc, logFile };
  })();
  return shared;
}

let counter = 0;
/** A name unique within this run, valid as a DNS-1123 label. */
export function uniqueName(prefix: string): string {
  counter += 1;
  const rand = Math.random().toString(36).slice(2, 7);
  return `${prefix}-${process.pid.toString(36)}-${counter}-${rand}`.toLowerCase().slice(0, 63);
}

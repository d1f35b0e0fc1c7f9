/**
 * One way for commands to reach a cluster: an explicit kubeconfig path, else
 * KUBECONFIG / ~/.kube/config / in-cluster config, as kubectl does. Every failure
 * names the kubeconfig, the context and the server, and says what to do.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { KgraphError } from '../diag/diagnostic.ts';
import { KubeConfig } from './kubeconfig.ts';
import { RestClient, type RestClientOptions } from './rest.ts';

const START_ONE =
  'pass --kubeconfig FILE, set KUBECONFIG, or start a local control plane with `npx kgraph cluster up`';

/** Where a kubeconfig came from, for messages. */
const sources = new WeakMap<KubeConfig, string>();
/** The kubeconfig this process loaded last: a CLI command talks to one cluster, and its errors name it. */
let lastLoaded: KubeConfig | undefined;

/** `describeKubeConfig` of the kubeconfig loaded last, if any. */
export function lastKubeConfigDescription(): string | undefined {
  return lastLoaded ? describeKubeConfig(lastLoaded) : undefined;
}

function defaultSource(): string | undefined {
  if (process.env.KUBECONFIG) return process.env.KUBECONFIG;
  const home = join(homedir(), '.kube', 'config');
  if (existsSync(home)) return home;
  if (process.env.KUBERNETES_SERVICE_HOST) return 'in-cluster service account';
  return undefined;
}

/** `kubeconfig FILE, context NAME, server URL`: which cluster a command talks to. */
export function describeKubeConfig(kc: KubeConfig): string {
  const context = kc.getCurrentContext();
  const server = kc.getCurrentCluster()?.server;
  return `kubeconfig ${sources.get(kc) ?? '(built in)'}, context ${context || '(none)'}${server ? `, server ${server}` : ''}`;
}

export function loadKubeConfig(path?: string, context?: string): KubeConfig {
  const kc = new KubeConfig();
  const source = path ?? defaultSource();
  if (source === undefined) {
    throw new KgraphError(
      'KG6011',
      `no kubeconfig: KUBECONFIG is not set and ~/.kube/config does not exist; ${START_ONE}`,
    );
  }
  try {
    if (path) kc.loadFromFile(path);
    else kc.loadFromDefault();
  } catch (err) {
    throw new KgraphError('KG6010', `cannot load kubeconfig ${source}: ${(err as Error).message}`);
  }
  sources.set(kc, source);
  if (context) {
    if (!kc.getContextObject(context)) {
      const known = kc.getContexts().map((c) => c.name);
      throw new KgraphError(
        'KG6012',
        `kubeconfig ${source} has no context "${context}" (it has: ${known.join(', ') || 'none'}); pick one with --context`,
      );
    }
    kc.setCurrentContext(context);
  }
  if (!kc.getCurrentCluster()) {
    const current = kc.getCurrentContext();
    throw new KgraphError(
      'KG6011',
      current
        ? `kubeconfig ${source}: context "${current}" names no cluster; fix the context or pick another with --context`
        : `kubeconfig ${source} has no current context; pick one with --context, or ${START_ONE}`,
    );
  }
  lastLoaded = kc;
  return kc;
}

export function connect(path?: string, opts: RestClientOptions & { context?: string } = {}): RestClient {
  return new RestClient(loadKubeConfig(path, opts.context), opts);
}

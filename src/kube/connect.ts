/**
 * One way for commands to reach a cluster: an explicit kubeconfig path, else
 * KUBECONFIG / ~/.kube/config / in-cluster config, as kubectl does.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { KgraphError } from '../diag/diagnostic.ts';
import { RestClient, type RestClientOptions } from './rest.ts';

export function loadKubeConfig(path?: string, context?: string): KubeConfig {
  const kc = new KubeConfig();
  try {
    if (path) kc.loadFromFile(path);
    else kc.loadFromDefault();
  } catch (err) {
    throw new KgraphError(
      'KG6010',
      `cannot load kubeconfig${path ? ` ${path}` : ''}: ${(err as Error).message}`,
    );
  }
  if (context) kc.setCurrentContext(context);
  if (!kc.getCurrentCluster()) {
    throw new KgraphError(
      'KG6011',
      'no cluster configured: pass --kubeconfig, set KUBECONFIG, or start one with `kgraph cluster up`',
    );
  }
  return kc;
}

export function connect(path?: string, opts: RestClientOptions & { context?: string } = {}): RestClient {
  return new RestClient(loadKubeConfig(path, opts.context), opts);
}

/**
 * A real RestClient whose server is nowhere (127.0.0.1 port 1): for unit tests of code that holds a
 * client but whose assertions never depend on an answer (requests fail at once).
 */
import { KubeConfig } from '../../src/kube/kubeconfig.ts';
import { RestClient } from '../../src/kube/rest.ts';

export function unreachableClient(): RestClient {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return new RestClient(kc);
}

/**
 * Connecting to a registered consumer cluster (design/planes.md §3.3): the kubeconfig from its Secret in the
 * controller namespace, the kube-system namespace UID (cluster identity, design/planes.md §3.3.2) and the identity the
 * credentials have there (SelfSubjectReview). Failures are typed values with the condition reason.
 */

import { kubectlNameIn } from '../../diag/objectName.ts';
import { isForbidden, isNotFound, type KubeObject, RestClient, selfSubjectReview } from '../../kube/index.ts';
import { KubeConfig } from '../../kube/kubeconfig.ts';
import { errorMessage } from '../core/errors.ts';

export type ConnectFailure = { ok: false; reason: 'KubeconfigInvalid' | 'Unreachable'; message: string };
export type ConnectSuccess = {
  ok: true;
  client: RestClient;
  /** '' when the credentials may not read the kube-system namespace (serving role not granted). */
  kubeSystemUID: string;
  identity: { username: string; groups: string[] };
  secretVersion: string;
};

/** The kubeconfig text of a registration, or why there is none. */
export async function readKubeconfig(
  management: RestClient,
  namespace: string,
  cc: KubeObject,
): Promise<{ ok: true; text: string; version: string } | ConnectFailure> {
  const ref = ((cc.spec ?? {}) as { kubeconfigSecretRef?: { name?: string; key?: string } })
    .kubeconfigSecretRef;
  const name = ref?.name ?? '';
  const key = ref?.key || 'kubeconfig';
  if (!name)
    return { ok: false, reason: 'KubeconfigInvalid', message: 'spec.kubeconfigSecretRef.name is empty' };
  const secretName = kubectlNameIn({ apiVersion: 'v1', kind: 'Secret', namespace, name });
  let secret: KubeObject;
  try {
    secret = await management.get({ apiVersion: 'v1', kind: 'Secret', namespace, name });
  } catch (e) {
    return {
      ok: false,
      reason: 'KubeconfigInvalid',
      message: isNotFound(e) ? `${secretName} does not exist` : `read ${secretName}: ${errorMessage(e)}`,
    };
  }
  const data = (secret.data ?? {}) as Record<string, string>;
  const b64 = data[key];
  if (typeof b64 !== 'string' || b64 === '')
    return {
      ok: false,
      reason: 'KubeconfigInvalid',
      message: `${secretName} has no key ${key}`,
    };
  return {
    ok: true,
    text: Buffer.from(b64, 'base64').toString('utf8'),
    version: secret.metadata.resourceVersion ?? '',
  };
}

export async function connectConsumer(
  text: string,
  version: string,
): Promise<ConnectSuccess | ConnectFailure> {
  let client: RestClient;
  try {
    const kc = new KubeConfig();
    kc.loadFromString(text);
    if (!kc.getCurrentCluster()) throw new Error('no current cluster');
    const local = localReferences(kc);
    if (local.length > 0)
      return {
        ok: false,
        reason: 'KubeconfigInvalid',
        message: `the kubeconfig names ${local.join(', ')}: a registered kubeconfig must carry its credentials inline (certificate-authority-data, client-certificate-data, client-key-data, token); the controller never reads its own files or runs a program for a registration`,
      };
    client = new RestClient(kc, { timeoutMs: 15_000, maxRetries: 1 });
  } catch (e) {
    return {
      ok: false,
      reason: 'KubeconfigInvalid',
      message: `the kubeconfig does not load: ${errorMessage(e)}`,
    };
  }
  try {
    const who = await selfSubjectReview(client);
    // The serving role grants `get` on this one namespace; without it the identity cannot be verified.
    let uid = '';
    try {
      const ns = await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'kube-system' });
      uid = ns.metadata.uid ?? '';
    } catch (e) {
      if (!isForbidden(e)) throw e;
    }
    return {
      ok: true,
      client,
      kubeSystemUID: uid,
      identity: { username: who.username, groups: who.groups },
      secretVersion: version,
    };
  } catch (e) {
    client.close();
    return { ok: false, reason: 'Unreachable', message: errorMessage(e) };
  }
}

/**
 * What a registered kubeconfig would make the controller read or run on its own machine: file paths
 * (CA, client certificate or key, token file) and credential plugins (exec, auth-provider). Whoever may
 * write a registration's Secret could otherwise have the controller read its own ServiceAccount token
 * or any file it can open, or run a command, with the controller's identity; a registration holds
 * data, never references to the controller's machine.
 */
export function localReferences(kc: KubeConfig): string[] {
  const out: string[] = [];
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (cluster?.['certificate-authority'])
    out.push(`a certificate-authority file (${cluster['certificate-authority']})`);
  if (user?.['client-certificate']) out.push(`a client-certificate file (${user['client-certificate']})`);
  if (user?.['client-key']) out.push(`a client-key file (${user['client-key']})`);
  if (user?.tokenFile) out.push(`a tokenFile (${user.tokenFile})`);
  if (user?.exec) out.push(`an exec credential plugin (${user.exec.command})`);
  if (user?.['auth-provider']) out.push(`an auth-provider (${user['auth-provider'].name})`);
  return out;
}

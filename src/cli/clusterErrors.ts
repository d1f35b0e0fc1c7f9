/**
 * What a command prints when the cluster cannot be used: which
 * kubeconfig, context and server it tried, and what to do, instead of a bare
 * `connect ECONNREFUSED 127.0.0.1:1`.
 */
import { lastKubeConfigDescription } from '../kube/connect.ts';
import { isApiError } from '../kube/errors.ts';

const UNREACHABLE =
  /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|ECONNRESET|socket hang up|timed? ?out/i;
const TLS = /certificate|self[- ]signed|SSL|TLS|UNABLE_TO_VERIFY|ERR_TLS/i;

/** A message for an error reaching or authenticating to the cluster, or undefined for any other error. */
export function explainClusterError(err: unknown): { code: string; message: string } | undefined {
  if (!isApiError(err)) return undefined;
  const where = lastKubeConfigDescription();
  if (!where) return undefined;
  if (err.code === 0 && TLS.test(err.message)) {
    return {
      code: 'KG6013',
      message: `the API server's certificate was not accepted (${where}): ${err.message}; check the cluster's certificate-authority-data in the kubeconfig`,
    };
  }
  if (err.code === 0 && UNREACHABLE.test(err.message)) {
    return {
      code: 'KG6014',
      message: `cannot reach the API server (${where}): ${err.message}; check that the cluster is running and the kubeconfig points at it (the local one: \`npx kgraph cluster status\`, \`npx kgraph cluster up\`)`,
    };
  }
  if (err.code === 401) {
    return {
      code: 'KG6015',
      message: `the API server refused the credentials (${where}): ${err.message}; refresh the kubeconfig's credentials`,
    };
  }
  return undefined;
}

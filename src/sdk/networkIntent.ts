/**
 * `meta.network.intents` on a workload: traffic the `.out` references cannot show (clients outside the
 * cluster, external APIs, the API server). The Kix reference names the attribute but not its shape; ours is below
 * (docs/sdk.md, "Network policies"). Each intent becomes one rule of the workload's policy.
 */
import type { ResNode } from './build.ts';
import { SdkCode, SdkError } from './errors.ts';
import { materialize } from './materialize.ts';
import { type AnyResource, nodeOf } from './resource.ts';
import { asObj } from './validators.ts';

export type IntentEntity = 'world' | 'cluster' | 'kube-apiserver' | 'host';

export type IntentPeer =
  | { readonly entity: IntentEntity }
  | { readonly cidr: string }
  /** A DNS name outside the cluster (CiliumNetworkPolicy only: `toFQDNs`). */
  | { readonly fqdn: string }
  /** A Service (or `mkServiceRef`) of the build: its pods, on its target ports when `ports` is omitted. */
  | { readonly service: AnyResource };

export interface IntentPort {
  readonly port: number | string;
  readonly protocol?: 'TCP' | 'UDP' | 'SCTP';
}

export type NetworkIntent =
  | { readonly direction: 'egress'; readonly to: IntentPeer; readonly ports?: readonly IntentPort[] }
  | { readonly direction: 'ingress'; readonly from: IntentPeer; readonly ports?: readonly IntentPort[] };

/** A peer of a rule, resolved to plain data. */
export type Peer =
  | { readonly type: 'pods'; readonly namespace: string; readonly labels: Readonly<Record<string, string>> }
  | { readonly type: 'entity'; readonly entity: IntentEntity }
  | { readonly type: 'cidr'; readonly cidr: string }
  | { readonly type: 'fqdn'; readonly fqdn: string };

export interface PolicyPort {
  readonly port: number | string;
  readonly protocol: 'TCP' | 'UDP' | 'SCTP';
}

export interface Rule {
  readonly peer: Peer;
  /** Empty: every port. */
  readonly ports: readonly PolicyPort[];
}

const ENTITIES: readonly string[] = ['world', 'cluster', 'kube-apiserver', 'host'];
const CIDR = /^(\d{1,3}(\.\d{1,3}){3}\/\d{1,2}|[0-9a-fA-F:]+\/\d{1,3})$/;

/** The pods behind a Service node and the pod ports its ports lead to. */
export function servicePeer(svc: ResNode): { peer: Peer; ports: PolicyPort[] } | undefined {
  const spec = asObj(asObj(materialize(svc.draft, 'text').value)?.spec);
  const selector = asObj(spec?.selector) as Record<string, string> | undefined;
  if (!selector || Object.keys(selector).length === 0 || svc.namespace === undefined) return undefined;
  const ports = (Array.isArray(spec?.ports) ? spec.ports : []).map((p) => {
    const o = asObj(p) ?? {};
    return {
      port: (o.targetPort ?? o.port) as number | string,
      protocol: (o.protocol ?? 'TCP') as PolicyPort['protocol'],
    };
  });
  return { peer: { type: 'pods', namespace: svc.namespace, labels: { ...selector } }, ports };
}

/** Resolves one authored intent of a workload into a rule. */
export function intentRule(
  raw: unknown,
  index: number,
  workload: ResNode,
): { direction: 'egress' | 'ingress'; rule: Rule } {
  const path = `meta.network.intents[${index}]`;
  const bad = (why: string): never => {
    throw new SdkError(SdkCode.networkIntent, `${workload.label}: ${path}: ${why}`, {
      node: workload.key,
      path,
    });
  };
  const o = asObj(raw) ?? bad('must be an object');
  const direction = o.direction;
  if (direction !== 'egress' && direction !== 'ingress')
    return bad('direction must be "egress" or "ingress"');
  const peerRaw = direction === 'egress' ? o.to : o.from;
  const p = (peerRaw !== null && typeof peerRaw === 'object' ? peerRaw : undefined) as
    | Record<string, unknown>
    | undefined;
  if (!p) return bad(`${direction === 'egress' ? 'to' : 'from'} is required`);
  const ports: PolicyPort[] = [];
  for (const [i, x] of (Array.isArray(o.ports) ? o.ports : []).entries()) {
    const port = asObj(x)?.port;
    const protocol = asObj(x)?.protocol ?? 'TCP';
    const okPort =
      (typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535) ||
      (typeof port === 'string' && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(port));
    if (!okPort) bad(`ports[${i}].port must be 1..65535 or a port name`);
    if (!['TCP', 'UDP', 'SCTP'].includes(String(protocol)))
      bad(`ports[${i}].protocol must be TCP, UDP or SCTP`);
    ports.push({ port: port as number | string, protocol: protocol as PolicyPort['protocol'] });
  }
  let peer: Peer;
  if ('entity' in p) {
    if (!ENTITIES.includes(String(p.entity))) bad(`entity must be one of ${ENTITIES.join(', ')}`);
    peer = { type: 'entity', entity: p.entity as IntentEntity };
  } else if ('cidr' in p) {
    if (typeof p.cidr !== 'string' || !CIDR.test(p.cidr)) bad('cidr must be an IPv4 or IPv6 CIDR');
    peer = { type: 'cidr', cidr: p.cidr as string };
  } else if ('fqdn' in p) {
    if (direction !== 'egress') bad('an fqdn peer is for egress only');
    if (typeof p.fqdn !== 'string' || !/^[a-z0-9*]([-a-z0-9.*]*[a-z0-9])?$/.test(p.fqdn))
      bad('fqdn must be a DNS name');
    peer = { type: 'fqdn', fqdn: p.fqdn as string };
  } else if ('service' in p) {
    const svc = nodeOf(p.service);
    if (svc?.kind !== 'Service' || svc.apiVersion !== 'v1')
      return bad('service must be a v1 Service resource');
    const resolved = servicePeer(svc) ?? bad(`${svc.label} has no selector`);
    peer = resolved.peer;
    if (ports.length === 0) ports.push(...resolved.ports);
  } else {
    return bad('the peer needs one of entity, cidr, fqdn or service');
  }
  return { direction, rule: { peer, ports } };
}

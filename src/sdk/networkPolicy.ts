/**
 * Network-policy synthesis (design/sdk.md §A2.5, §A4.2, §A5.2): when `cluster.networkPolicy.enable`, every workload
 * gets one least-privilege policy selecting its pods, allowing exactly
 *  - egress to the pods behind every Service (or `mkServiceRef`) whose endpoint it uses: `.out.fqdn`,
 *    `.out.port` or `.out.url` in its manifest, or in an object it references that forwards endpoint facts
 *    (a ConfigMap holding a URL; a custom resource with `factBehavior.endpoint = "conduct"`), on the
 *    Service's target ports — and the matching ingress on the workloads whose pods that Service selects;
 *  - egress to the cluster DNS on UDP/TCP 53 for `ClusterFirst` pods when a `"dns"` role provider exists;
 *  - the rules of its `meta.network.intents`.
 * Everything else is denied. Custom resources terminate endpoint facts unless they declare `conduct`;
 * built-in non-workload objects forward them unless they declare `terminate`.
 */
import type { Build, ResNode, WorkloadRecord } from './build.ts';
import type { Ctx } from './context.ts';
import { SdkCode, SdkError } from './errors.ts';
import { materialize } from './materialize.ts';
import { intentRule, type Peer, type PolicyPort, type Rule, servicePeer } from './networkIntent.ts';

/** The pods of a DNS provider outside the build: the Kubernetes convention for cluster DNS. */
const EXTERNAL_DNS: Peer = { type: 'pods', namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } };
const DNS_PORTS: readonly PolicyPort[] = [
  { port: 53, protocol: 'UDP' },
  { port: 53, protocol: 'TCP' },
];

interface Rules {
  ingress: Rule[];
  egress: (Rule & { dns?: boolean })[];
}

const isService = (n: ResNode): boolean => n.kind === 'Service' && n.apiVersion === 'v1';
const isCustomResource = (n: ResNode): boolean =>
  n.structural.some((s) => s.kind === 'CustomResourceDefinition');

function subset(sel: Readonly<Record<string, string>>, labels: Readonly<Record<string, string>>): boolean {
  return Object.entries(sel).every(([k, v]) => labels[k] === v);
}

/** Derives the policies and adds them to the build (called by finalize before edges are collected). */
export function synthesizeNetworkPolicies(build: Build): void {
  const { enable, kind } = build.cluster.networkPolicy;
  if (!enable || build.workloads.length === 0) return;
  const records = new Map(build.workloads.map((w) => [w.node, w]));
  const ctxs = new Map<ResNode, Ctx>();
  const ctxOf = (n: ResNode): Ctx => {
    let c = ctxs.get(n);
    if (!c) {
      c = materialize(n.draft, 'text').ctx;
      ctxs.set(n, c);
    }
    return c;
  };
  const forwards = (n: ResNode): boolean => {
    if (records.has(n) || isService(n) || n.kind === 'Namespace' || n.kind === 'CustomResourceDefinition')
      return false;
    return (n.endpointBehavior ?? (isCustomResource(n) ? 'terminate' : 'conduct')) === 'conduct';
  };
  // The Services whose endpoints a node uses, directly or through objects that forward endpoint facts.
  const reached = new Map<ResNode, Set<ResNode>>();
  const endpointsOf = (n: ResNode): Set<ResNode> => {
    const known = reached.get(n);
    if (known) return known;
    const out = new Set<ResNode>();
    reached.set(n, out); // a reference cycle adds nothing new
    const c = ctxOf(n);
    for (const x of c.connect as ReadonlySet<ResNode>) if (x !== n && isService(x)) out.add(x);
    for (const x of new Set([...(c.order as ReadonlySet<ResNode>), ...(c.connect as ReadonlySet<ResNode>)])) {
      if (x !== n && forwards(x)) for (const s of endpointsOf(x)) out.add(s);
    }
    return out;
  };

  const rules = new Map<WorkloadRecord, Rules>(build.workloads.map((w) => [w, { ingress: [], egress: [] }]));
  const podsOf = (w: WorkloadRecord): Peer => ({
    type: 'pods',
    namespace: w.node.namespace!,
    labels: w.selector,
  });
  /** `from` may reach the pods of `to` on `ports`; the workloads running those pods admit `from`. */
  const allowPods = (from: WorkloadRecord, to: Peer, ports: readonly PolicyPort[], dns = false): void => {
    rules.get(from)!.egress.push({ peer: to, ports, ...(dns ? { dns } : {}) });
    if (to.type !== 'pods') return;
    for (const t of build.workloads) {
      if (t.node.namespace === to.namespace && subset(to.labels, t.podLabels)) {
        rules.get(t)!.ingress.push({ peer: podsOf(from), ports });
      }
    }
  };

  const dnsProvider = build.cluster.providers.dns;
  const dnsPeer = dnsProvider === undefined ? undefined : dnsPeerOf(build.roleNodes.get('dns'), records);
  if (dnsPeer === undefined && build.workloads.some((w) => w.clusterFirstDns)) {
    build.warn(
      SdkCode.networkPolicy,
      'network policies are enabled but the cluster has no "dns" role provider: no workload is granted DNS egress',
    );
  }
  for (const w of build.workloads) {
    for (const svc of [...endpointsOf(w.node)].sort((a, b) => (a.key < b.key ? -1 : 1))) {
      const sp = servicePeer(svc);
      if (!sp) {
        build.warn(
          SdkCode.networkPolicy,
          `${w.node.label} uses ${svc.label}, which has no selector: no network-policy rule derived for it`,
          { node: w.node.key },
        );
        continue;
      }
      allowPods(w, sp.peer, sp.ports);
    }
    if (dnsPeer && w.clusterFirstDns) allowPods(w, dnsPeer, DNS_PORTS, true);
    w.intents.forEach((raw, i) => {
      const { direction, rule } = intentRule(raw, i, w.node);
      if (direction === 'egress') allowPods(w, rule.peer, rule.ports);
      else {
        rules.get(w)!.ingress.push(rule);
        if (rule.peer.type === 'pods') {
          const peer = rule.peer;
          for (const src of build.workloads) {
            if (src.node.namespace === peer.namespace && subset(peer.labels, src.podLabels)) {
              rules.get(src)!.egress.push({ peer: podsOf(w), ports: rule.ports });
            }
          }
        }
      }
    });
  }

  const taken = new Set(build.nodes.filter((n) => n.kind === kind).map((n) => `${n.namespace}/${n.name}`));
  for (const w of build.workloads) {
    const r = rules.get(w)!;
    let name = w.node.name;
    if (taken.has(`${w.node.namespace}/${name}`)) name = `${name}-${w.node.kind.toLowerCase()}`;
    taken.add(`${w.node.namespace}/${name}`);
    const spec =
      kind === 'CiliumNetworkPolicy' ? ciliumSpec(w, r) : kubernetesSpec(w, r, (why) => refuse(w, why));
    const policy = w.createInScope({
      apiVersion: kind === 'CiliumNetworkPolicy' ? 'cilium.io/v2' : 'networking.k8s.io/v1',
      kind,
      name,
      spec,
    });
    // The pods start under their policy: the workload is applied after it.
    w.node.structural.push(policy);
  }
}

function refuse(w: WorkloadRecord, why: string): never {
  throw new SdkError(
    SdkCode.networkPolicyKind,
    `${w.node.label}: ${why} cannot be expressed in a networking.k8s.io/v1 NetworkPolicy; use networkPolicy.kind: CiliumNetworkPolicy`,
    { node: w.node.key, path: 'meta.network.intents' },
  );
}

function dnsPeerOf(node: ResNode | undefined, records: ReadonlyMap<ResNode, WorkloadRecord>): Peer {
  if (node === undefined) return EXTERNAL_DNS;
  const w = records.get(node);
  if (w) return { type: 'pods', namespace: node.namespace!, labels: w.selector };
  if (node.kind === 'Service' && node.apiVersion === 'v1') return servicePeer(node)?.peer ?? EXTERNAL_DNS;
  return EXTERNAL_DNS;
}

/** A stable key for a peer (label order does not matter). */
function peerKey(p: Peer): string {
  switch (p.type) {
    case 'pods':
      return `pods|${p.namespace}|${Object.entries(p.labels)
        .map(([k, v]) => `${k}=${v}`)
        .sort()
        .join(',')}`;
    case 'entity':
      return `entity|${p.entity}`;
    case 'cidr':
      return `cidr|${p.cidr}`;
    case 'fqdn':
      return `fqdn|${p.fqdn}`;
  }
}

/** One rule per peer, ports united (no ports on any rule of a peer: every port), sorted. */
function merged<R extends Rule & { dns?: boolean }>(list: readonly R[]): (Rule & { dns: boolean })[] {
  const byPeer = new Map<string, { peer: Peer; ports: Map<string, PolicyPort> | 'all'; dns: boolean }>();
  for (const r of list) {
    const key = peerKey(r.peer);
    const cur = byPeer.get(key) ?? { peer: r.peer, ports: new Map<string, PolicyPort>(), dns: false };
    cur.dns ||= r.dns === true;
    if (r.ports.length === 0) cur.ports = 'all';
    else if (cur.ports !== 'all') for (const p of r.ports) cur.ports.set(`${p.protocol}/${p.port}`, p);
    byPeer.set(key, cur);
  }
  return [...byPeer.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, v]) => ({
      peer: v.peer,
      dns: v.dns,
      ports:
        v.ports === 'all'
          ? []
          : [...v.ports.values()].sort((a, b) =>
              `${a.port}/${a.protocol}` < `${b.port}/${b.protocol}` ? -1 : 1,
            ),
    }));
}

// ---- CiliumNetworkPolicy (cilium.io/v2) ---------------------------------------------------------

const CILIUM_NAMESPACE = 'k8s:io.kubernetes.pod.namespace';

function ciliumPeer(p: Peer, dir: 'from' | 'to'): Record<string, unknown> {
  switch (p.type) {
    case 'pods':
      return { [`${dir}Endpoints`]: [{ matchLabels: { ...p.labels, [CILIUM_NAMESPACE]: p.namespace } }] };
    case 'entity':
      return { [`${dir}Entities`]: [p.entity] };
    case 'cidr':
      return { [`${dir}CIDR`]: [p.cidr] };
    case 'fqdn':
      return { toFQDNs: [p.fqdn.includes('*') ? { matchPattern: p.fqdn } : { matchName: p.fqdn }] };
  }
}

function ciliumRule(r: Rule & { dns: boolean }, dir: 'from' | 'to'): Record<string, unknown> {
  const ports = r.ports.map((p) => ({ port: String(p.port), protocol: p.protocol }));
  return {
    ...ciliumPeer(r.peer, dir),
    ...(ports.length > 0
      ? { toPorts: [{ ports, ...(r.dns ? { rules: { dns: [{ matchPattern: '*' }] } } : {}) }] }
      : {}),
  };
}

function ciliumSpec(w: WorkloadRecord, r: Rules): Record<string, unknown> {
  const ingress = merged(r.ingress).map((x) => ciliumRule(x, 'from'));
  const egress = merged(r.egress).map((x) => ciliumRule(x, 'to'));
  // `[{}]` is Cilium's default deny for a direction: the section is enforced and allows nothing.
  return {
    endpointSelector: { matchLabels: { ...w.selector } },
    ingress: ingress.length > 0 ? ingress : [{}],
    egress: egress.length > 0 ? egress : [{}],
  };
}

// ---- NetworkPolicy (networking.k8s.io/v1) ------------------------------------------------------

function kubernetesPeer(p: Peer, refuseWith: (why: string) => never): Record<string, unknown> {
  switch (p.type) {
    case 'pods':
      return {
        podSelector: { matchLabels: { ...p.labels } },
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': p.namespace } },
      };
    case 'cidr':
      return { ipBlock: { cidr: p.cidr } };
    case 'entity':
      if (p.entity === 'world') return { ipBlock: { cidr: '0.0.0.0/0' } };
      if (p.entity === 'cluster') return { namespaceSelector: {} };
      return refuseWith(`the entity "${p.entity}"`);
    case 'fqdn':
      return refuseWith(`the fqdn peer "${p.fqdn}"`);
  }
}

function kubernetesSpec(
  w: WorkloadRecord,
  r: Rules,
  refuseWith: (why: string) => never,
): Record<string, unknown> {
  const rule = (x: Rule, dir: 'from' | 'to') => ({
    [dir]: [kubernetesPeer(x.peer, refuseWith)],
    ...(x.ports.length > 0 ? { ports: x.ports.map((p) => ({ port: p.port, protocol: p.protocol })) } : {}),
  });
  // Both policy types with no rule of a type deny that direction entirely.
  return {
    podSelector: { matchLabels: { ...w.selector } },
    policyTypes: ['Ingress', 'Egress'],
    ingress: merged(r.ingress).map((x) => rule(x, 'from')),
    egress: merged(r.egress).map((x) => rule(x, 'to')),
  };
}

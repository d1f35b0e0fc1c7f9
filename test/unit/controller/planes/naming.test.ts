/**
 * Naming golden vectors (design/planes.md §3.3.2, §7, §9): the spec's tables, each
 * checked against an independent computation (WebCrypto over the NUL-joined bytes, truncation written
 * out separately) as well as against the literal expected value.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  clusterIdFromUid,
  hashedName,
  livenessRecordName,
  nameLimit,
  qualifiedName,
  safeLabelValue,
} from '../../../../src/controller/planes/naming.ts';

/** SHA-256 hex through WebCrypto (not node:crypto's createHash, which naming.ts uses). */
async function sha256(bytes: Uint8Array): Promise<string> {
  const d = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes));
  return [...d].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function joinNul(parts: string[]): Uint8Array {
  const enc = new TextEncoder();
  const chunks = parts.map((p) => enc.encode(p));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0) + parts.length - 1);
  let at = 0;
  chunks.forEach((c, i) => {
    out.set(c, at);
    at += c.length;
    if (i < chunks.length - 1) at += 1; // the NUL byte (already 0)
  });
  return out;
}

/** design/planes.md §7.2 written independently: hash first, then cut and strip the seam character by character. */
async function reference(parts: string[], readable: string[], limit: number): Promise<string> {
  const suffix = (await sha256(joinNul(parts))).slice(0, 12);
  let base = readable.join('-');
  if (limit < 253) base = base.split('.').join('-');
  if (base.length + 13 > limit) {
    base = base.substring(0, limit - 13);
    while (base.endsWith('-') || base.endsWith('.')) base = base.substring(0, base.length - 1);
  }
  return `${base}-${suffix}`;
}

const a300 = 'a'.repeat(300);
const KGRAPH: [string, string, string, string, number, string][] = [
  ['cluster1', 'default', 'demo', 'eu-agent', 253, 'cluster1-demo-eu-agent-5d575239d63f'],
  ['cluster1', 'team-a', 'demo', 'eu-agent', 253, 'cluster1-demo-eu-agent-b6bc67141d9a'],
  ['cluster1', '', 'demo', 'eu-agent', 253, 'cluster1-demo-eu-agent-5862c66d61f6'],
  ['kvdk8299mah3yj1p', 'default', 'demo', 'eu-agent', 253, 'kvdk8299mah3yj1p-demo-eu-agent-d2b64912fd96'],
  ['a', 'ns', 'b-c', 'd', 253, 'a-b-c-d-0c7bbd115e16'],
  ['a-b', 'ns', 'c', 'd', 253, 'a-b-c-d-3977f7194d91'],
  [
    'cfd388043d163fa5',
    'shop',
    'orders.v2',
    'postgres-primary-endpoint',
    63,
    'cfd388043d163fa5-orders-v2-postgres-primary-endpoi-020df25182a9',
  ],
  ['cfd388043d163fa5', 'shop', 'orders', 'api', 63, 'cfd388043d163fa5-orders-api-45b3d59c0717'],
];

describe('planes naming (design/planes.md §7)', () => {
  it('kgraph golden vectors, namespace in the hash', async () => {
    for (const [c, ns, inst, orig, limit, want] of KGRAPH) {
      const kind = limit === 63 ? 'Service' : 'ConfigMap';
      const got = qualifiedName(c, ns, inst, orig, kind);
      assert.equal(got, want, `${c}/${ns}/${inst}/${orig}`);
      assert.equal(got, await reference([c, ns, inst, orig], [c, inst, orig], limit));
    }
  });

  it('300-character inputs give 253 characters ending in the 12-hex suffix', async () => {
    const got = qualifiedName(a300, 'ns', a300, a300, 'ConfigMap');
    assert.equal(got.length, 253);
    assert.ok(got.endsWith('aaaaaaa-393626dacd8b'));
    assert.equal(got, await reference([a300, 'ns', a300, a300], [a300, a300, a300], 253));
  });

  it("krop's reference form (no namespace) through the shared truncation", async () => {
    const krop = (c: string, i: string, o: string) => hashedName(`${c}-${i}-${o}`, [c, i, o], 253);
    assert.equal(krop('cluster1', 'demo', 'eu-agent'), 'cluster1-demo-eu-agent-06a71f5ac286');
    assert.equal(krop('kvdk8299mah3yj1p', 'demo', 'eu-agent'), 'kvdk8299mah3yj1p-demo-eu-agent-6a99a638030c');
    assert.equal(krop('a', 'b-c', 'd'), 'a-b-c-d-c8555ea7a286');
    assert.equal(krop('a-b', 'c', 'd'), 'a-b-c-d-606ca3a46b22');
    const long = krop(a300, a300, a300);
    assert.equal(long.length, 253);
    assert.ok(long.endsWith('aaaaaaa-c91714bb2a25'));
    const cut = krop('x'.repeat(239), 'y', 'z');
    assert.equal(cut.length, 252);
    assert.ok(!cut.includes('--') && !cut.includes('.-'));
    assert.equal(cut, await reference(['x'.repeat(239), 'y', 'z'], ['x'.repeat(239), 'y', 'z'], 253));
  });

  it('is deterministic and separates tenants, instances and namespaces (design/planes.md §18.1)', () => {
    const one = qualifiedName('cluster1', 'default', 'demo', 'eu-agent', 'ConfigMap');
    assert.equal(qualifiedName('cluster1', 'default', 'demo', 'eu-agent', 'ConfigMap'), one);
    assert.notEqual(qualifiedName('cluster2', 'default', 'demo', 'eu-agent', 'ConfigMap'), one);
    assert.notEqual(qualifiedName('cluster1', 'default', 'demo2', 'eu-agent', 'ConfigMap'), one);
    assert.notEqual(qualifiedName('cluster1', 'ns-b', 'demo', 'eu-agent', 'ConfigMap'), one);
    // design/planes.md §18.1: krop's tuple has no namespace (ns-a/demo and ns-b/demo would collide); kgraph's does.
    assert.notEqual(
      qualifiedName('cluster1', 'ns-a', 'demo', 'eu-agent', 'ConfigMap'),
      qualifiedName('cluster1', 'ns-b', 'demo', 'eu-agent', 'ConfigMap'),
    );
  });

  it('kind-aware limits: DNS-label kinds get ≤63 characters and no dots', () => {
    assert.equal(nameLimit('Service'), 63);
    assert.equal(nameLimit('StatefulSet'), 63);
    assert.equal(nameLimit('Namespace'), 63);
    assert.equal(nameLimit('CronJob'), 52);
    assert.equal(nameLimit('ConfigMap'), 253);
    const n = qualifiedName(
      'cfd388043d163fa5',
      'shop',
      'orders.v2',
      `${'very-long-'.repeat(10)}svc`,
      'Service',
    );
    assert.ok(n.length <= 63);
    assert.match(n, /^[a-z]([-a-z0-9]*[a-z0-9])?$/);
    assert.ok(qualifiedName('c1', 'ns', 'i', 'x'.repeat(80), 'CronJob').length <= 52);
  });

  it('liveness record names and derived cluster IDs (design/planes.md §7.3, §3.3.2)', async () => {
    const uid = '0b7c2a0e-1111-2222-3333-444455556666';
    assert.equal(livenessRecordName('cluster1', uid), 'krop-live-321af0594b4452bf');
    assert.equal(
      livenessRecordName('cluster1', uid),
      `krop-live-${(await sha256(joinNul(['cluster1', uid]))).slice(0, 16)}`,
    );
    assert.equal(clusterIdFromUid(uid), 'cfd388043d163fa5');
    assert.equal(clusterIdFromUid(uid), `c${(await sha256(new TextEncoder().encode(uid))).slice(0, 15)}`);
    assert.match(clusterIdFromUid(uid), /^[a-z][a-z0-9]{15}$/);
  });

  it('label values: ≤63 characters and the label regex, long ones hashed (design/planes.md §9, §18.6)', async () => {
    const long = 'hosteddatabaseconfigurations.platform-services.infrastructure.example.com';
    assert.equal(safeLabelValue(long), 'h-8ab70932b95542aff2aaddf1379d5a218539cf57');
    assert.equal(safeLabelValue(long), `h-${(await sha256(new TextEncoder().encode(long))).slice(0, 40)}`);
    assert.equal(
      safeLabelValue('hosteddatabases.krop.opendefense.cloud'),
      'hosteddatabases.krop.opendefense.cloud',
    );
    const group60 = `${'g'.repeat(55)}.io.x`;
    const v = safeLabelValue(`widgets.${group60}`);
    assert.ok(v.length <= 63);
    assert.match(v, /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/);
    assert.ok(!safeLabelValue('a/b').includes('/'));
  });
});

/**
 * What kgraph writes as YAML is read back unchanged by the API server's own YAML reader (sigs.k8s.io/yaml,
 * YAML 1.1 rules), the same reader `kubectl apply --dry-run=server` goes through: each document is sent
 * as an `application/apply-patch+yaml` body with `dryRun=All`. Strings like `yes`, `off`, `~`, `0755`,
 * `1:20` must come back as those strings.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { renderCrds } from '../../../src/cli/commands/crd.ts';
import { runRender } from '../../../src/cli/commands/render.ts';
import { runSynth } from '../../../src/cli/commands/synth.ts';
import type { RestClient } from '../../../src/kube/rest.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { testClient, testNamespace } from '../../support/kube.ts';
import { lookalikes } from './fixtures/lookalikes.ts';

const fixtures = join(import.meta.dirname, 'fixtures');

/** Server-side dry-run apply of YAML text, as kubectl apply --dry-run=server would send it. */
async function dryRunApply(client: RestClient, yamlText: string): Promise<KubeObject> {
  const obj = YAML.parse(yamlText) as KubeObject;
  const plural = { ConfigMap: 'configmaps', Namespace: 'namespaces', CustomResourceDefinition: '' }[obj.kind];
  const ns = obj.metadata?.namespace;
  const path =
    obj.kind === 'CustomResourceDefinition'
      ? `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${obj.metadata?.name}`
      : `/api/v1/${ns ? `namespaces/${ns}/` : ''}${plural}/${obj.metadata?.name}`;
  return (await client.request({
    method: 'PATCH',
    path,
    query: { fieldManager: 'kgraph-yaml-test', dryRun: 'All' },
    body: yamlText,
    contentType: 'application/apply-patch+yaml',
    verb: 'apply',
  })) as KubeObject;
}

/** The exact text of one object nested in a YAML document (keeps the writer's quoting). */
function nestedText(doc: string, path: (string | number)[]): string {
  const parsed = YAML.parseDocument(doc, { keepSourceTokens: true });
  const node = parsed.getIn(path, true) as { range?: [number, number, number] } | undefined;
  assert.ok(node?.range, `no node at ${path.join('.')}`);
  const [start, end] = node.range;
  const lineStart = doc.lastIndexOf('\n', start - 1) + 1;
  const indent = start - lineStart;
  return doc
    .slice(start, end)
    .split('\n')
    .map((line, i) => (i === 0 ? line : line.slice(indent)))
    .join('\n');
}

describe('YAML written by kgraph is read back unchanged by the API server (YAML 1.1 reader)', () => {
  let client: RestClient;
  let ns: string;
  before(async () => {
    client = await testClient();
    ns = await testNamespace('yaml');
  });
  after(() => client.close());

  it('synth: ConfigMap data keys and values and label values that look like booleans, null or numbers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kgraph-yaml-'));
    const clusterFile = join(dir, 'cluster.yaml');
    writeFileSync(clusterFile, YAML.stringify({ instances: { lookalikes: { namespace: ns } } }));
    const { documents } = await runSynth(join(fixtures, 'lookalikes.ts'), { cluster: clusterFile });
    const cmText = documents.find((d) => /kind: ConfigMap/.test(d));
    assert.ok(cmText, documents.join('---\n'));
    const applied = await dryRunApply(client, cmText);
    const data = applied.data as Record<string, string>;
    for (const [i, s] of lookalikes.entries()) assert.equal(data[`v${i}`], s, `data.v${i}`);
    assert.equal(data.on, 'key-is-on', 'a data key "on" stays the key "on"');
    const labels = applied.metadata?.labels ?? {};
    assert.deepEqual([labels.enabled, labels.legacy, labels.short], ['yes', 'off', 'y']);
    for (const d of documents) await dryRunApply(client, d); // the Namespace document too
  });

  it('the same ConfigMap written by a YAML 1.2 writer without the quoting is refused (what the test guards)', async () => {
    const plain = YAML.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'unquoted', namespace: ns },
      data: { a: 'yes' },
    });
    assert.match(plain, /a: yes/);
    // Server-side apply reports the retyped value; kubectl, which parses client-side, says
    // "cannot unmarshal bool into Go struct field ConfigMap.data of type string".
    await assert.rejects(dryRunApply(client, plain), /\.data\.a: expected string, got .*true/);
  });

  it('crd: string defaults and enum values "on", "off", "no" stay strings in the generated CRD', async () => {
    const file = join(fixtures, 'lookalikes-rgd.yaml');
    const out = renderCrds(file, readFileSync(file, 'utf8'));
    assert.equal(out.exitCode, 0, out.stderr);
    const crd = await dryRunApply(client, out.stdout);
    const spec = (crd.spec as { versions: { schema: { openAPIV3Schema: unknown } }[] }).versions[0]!.schema
      .openAPIV3Schema as { properties: { spec: { properties: Record<string, Record<string, unknown>> } } };
    const props = spec.properties.spec.properties;
    assert.equal(props.mode!.default, 'on');
    assert.deepEqual(props.mode!.enum, ['on', 'off']);
    assert.equal(props.answer!.default, 'no');
  });

  it('render: the desired ConfigMap, cut out of the render output as written, applies with its strings intact', async () => {
    const run = runRender(join(fixtures, 'lookalikes-graph.yaml'), { state: [], crd: [], output: 'yaml' });
    const text = nestedText(run.stdout, ['nodes', 0, 'objects', 0]).replace(
      /namespace: default/,
      `namespace: ${ns}`,
    );
    const applied = await dryRunApply(client, text);
    assert.deepEqual(applied.data, { a: 'yes', b: 'off', c: '0755', d: '1:20', on: '~' });
    assert.equal(applied.metadata?.labels?.enabled, 'yes');
  });
});

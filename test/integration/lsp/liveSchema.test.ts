// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests quote kgraph ${…} syntax
/**
 * `kgraph lsp --kubeconfig` against the real kube-apiserver: a kind the cluster does not serve yet is
 * unknown (KG3001); once its CRD is installed and the schemas are refreshed (the `kgraph/refreshSchemas`
 * notification; `--refresh` does the same periodically), the document compiles and completion offers the
 * CRD's fields.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { CompletionItem } from 'vscode-languageserver-protocol';
import { sharedControlPlane, type TestControlPlane, uniqueName } from '../../support/controlPlane.ts';
import { adminClient, eventually, installWidgetCRD } from '../../support/kube.ts';
import { type LspSession, positionOf, startLsp } from '../../support/lspClient.ts';

let plane: TestControlPlane;
let lsp: LspSession;

before(async () => {
  plane = await sharedControlPlane();
  lsp = startLsp(['--kubeconfig', plane.kubeconfigPath, '--refresh', '0']);
  await lsp.initialize();
});

after(async () => {
  assert.equal(await lsp.stop(), 0);
});

test('a CRD installed in the cluster becomes known after a refresh, with its fields', async () => {
  const group = `${uniqueName('lsp')}.kgraph.test`;
  const text = `apiVersion: kro.run/v1alpha1
kind: Graph
metadata: {name: g, namespace: default}
spec:
  nodes:
    - id: w
      template:
        apiVersion: ${group}/v1
        kind: Widget
        metadata: {name: w}
        spec: {size: 1}
    - id: cm
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: cm}
        data:
          size: \${string(w.spec.size)}
`;
  const uri = 'untitled:live.yaml';
  const first = lsp.diagnostics(uri, 1);
  lsp.open(uri, text, 1);
  assert.deepEqual(
    (await first).map((d) => d.code),
    ['KG3001'],
    'the kind is unknown while the cluster does not serve it',
  );
  await installWidgetCRD(await adminClient(), group);
  // The API server publishes a new CRD's OpenAPI a moment after it is Established: refresh until it does.
  await eventually(
    'the live schema knows Widget',
    async () => {
      const refreshed = lsp.diagnostics(uri);
      await lsp.connection.sendNotification('kgraph/refreshSchemas');
      return (await refreshed).length === 0 || undefined;
    },
    30_000,
  );
  const items = (await lsp.connection.sendRequest('textDocument/completion', {
    textDocument: { uri },
    position: positionOf(text, 'w.spec.size', 7),
  })) as CompletionItem[];
  assert.deepEqual(
    items
      .filter((i) => i.label === 'size' || i.label === 'color')
      .map((i) => [i.label, i.detail])
      .sort(),
    [
      ['color', 'string'],
      ['size', 'integer'],
    ],
  );
});

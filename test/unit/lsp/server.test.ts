// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests quote kgraph ${…} syntax
/**
 * `kgraph lsp` end to end: the command spawned as an editor spawns it, driven over stdio by
 * vscode-languageserver-protocol's connection. Positions come from the fixture's text, so each
 * assertion reads as what a user sees at that place.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type {
  CodeAction,
  CompletionItem,
  CompletionList,
  DocumentSymbol,
  Hover,
  Location,
  MarkupContent,
} from 'vscode-languageserver-protocol';
import { fileUri, type LspSession, positionOf, startLsp } from '../../support/lspClient.ts';

const FIXTURE = 'test/unit/lsp/fixtures/webapp-rgd.yaml';
const text = readFileSync(FIXTURE, 'utf8');
const uri = fileUri(FIXTURE);

function labels(r: CompletionItem[] | CompletionList | null): string[] {
  const items = Array.isArray(r) ? r : (r?.items ?? []);
  return items.map((i) => i.label);
}

function hoverText(h: Hover | null): string {
  return (h?.contents as MarkupContent | undefined)?.value ?? '';
}

describe('kgraph lsp over stdio', () => {
  let lsp: LspSession;
  let version = 1;

  before(async () => {
    lsp = startLsp();
    await lsp.initialize();
    const first = lsp.diagnostics(uri, 1);
    lsp.open(uri, text, 1);
    assert.deepEqual(await first, [], 'the kro example compiles without a diagnostic');
  });

  after(async () => {
    const code = await lsp.stop();
    assert.equal(code, 0, `shutdown then exit ends the server with 0 (stderr: ${lsp.stderr()})`);
  });

  async function edit(next: string) {
    version++;
    const published = lsp.diagnostics(uri, version);
    lsp.change(uri, next, version);
    return published;
  }

  test('diagnostics arrive at the exact range inside ${…}, with codes, and go away when fixed', async () => {
    const broken = text
      .replace('selector: ${deployment.spec', 'selector: ${deploymnt.spec')
      .replace('image: ${schema.spec.image}', 'image: "${schema.spec.imag}"')
      .replace(
        '        spec:\n          replicas: 3',
        '        spec:\n          replicas: |\n            ${schema.spec.nmae}',
      );
    const diags = await edit(broken);
    const byCode = new Map(diags.map((d) => [d.code, d]));
    const unknown = byCode.get('KG2082');
    assert.ok(unknown, JSON.stringify(diags));
    assert.deepEqual(unknown.range.start, positionOf(broken, 'deploymnt'));
    assert.deepEqual(unknown.range.end, positionOf(broken, 'deploymnt', 'deploymnt'.length));
    assert.match(String(unknown.message), /did you mean "deployment"/);
    assert.equal(unknown.source, 'kgraph');
    assert.deepEqual(
      unknown.relatedInformation?.[0]?.location.range.start,
      positionOf(broken, 'service', 0, 0),
      'related: the node the diagnostic concerns',
    );
    const fields = diags.filter((d) => d.code === 'KG3004');
    const starts = fields.map((d) => d.range.start);
    assert.deepEqual(
      starts.sort((a, b) => a.line - b.line),
      [positionOf(broken, 'nmae'), positionOf(broken, 'imag}')].sort((a, b) => a.line - b.line),
      'undefined fields in a quoted and in a block scalar',
    );
    assert.deepEqual(await edit(text), [], 'the fix clears them');
  });

  test('a quick fix applies "did you mean"', async () => {
    const broken = text.replace('selector: ${deployment.spec', 'selector: ${deploymnt.spec');
    const diags = await edit(broken);
    const d = diags.find((x) => x.code === 'KG2082')!;
    const actions = (await lsp.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri },
      range: d.range,
      context: { diagnostics: [d] },
    })) as CodeAction[];
    assert.equal(actions[0]?.title, 'Change to "deployment"');
    const e = actions[0]?.edit?.changes?.[uri]?.[0];
    assert.equal(e?.newText, 'deployment');
    assert.deepEqual(e?.range, d.range);
    assert.deepEqual(await edit(text), []);
  });

  test('a quick fix corrects a misspelt field from the schema of its receiver', async () => {
    const broken = text.replace('image: ${schema.spec.image}', 'image: ${schema.spec.imag}');
    const d = (await edit(broken)).find((x) => x.code === 'KG3004')!;
    assert.deepEqual(d.range.start, positionOf(broken, 'imag}'));
    const actions = (await lsp.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri },
      range: d.range,
      context: { diagnostics: [d] },
    })) as CodeAction[];
    assert.equal(actions[0]?.title, 'Change to "image"');
    assert.deepEqual(await edit(text), []);
  });

  test('completion: node ids after ${, fields after ., functions, apiVersion/kind, template fields', async () => {
    const complete = (position: { line: number; character: number }) =>
      lsp.connection.sendRequest('textDocument/completion', { textDocument: { uri }, position }) as Promise<
        CompletionItem[] | CompletionList | null
      >;
    const ids = labels(await complete(positionOf(text, '${deployment.spec.selector', 2)));
    for (const id of ['deployment', 'service', 'ingress', 'schema', 'size', 'has'])
      assert.ok(ids.includes(id), id);
    const deploymentFields = labels(await complete(positionOf(text, '${deployment.spec.selector', 13)));
    assert.ok(
      deploymentFields.includes('spec') && deploymentFields.includes('status'),
      String(deploymentFields),
    );
    const specFields = labels(await complete(positionOf(text, '${deployment.spec.selector', 18)));
    for (const f of ['replicas', 'selector', 'template']) assert.ok(specFields.includes(f), f);
    const schemaFields = labels(await complete(positionOf(text, '${schema.spec.image}', 14)));
    assert.deepEqual(schemaFields.filter((f) => ['name', 'image', 'ingress'].includes(f)).sort(), [
      'image',
      'ingress',
      'name',
    ]);
    const dotted = text.replace('${schema.spec.image}', '${schema.spec.image.}');
    await edit(dotted);
    const stringMethods = labels(await complete(positionOf(dotted, '${schema.spec.image.', 20)));
    assert.ok(stringMethods.includes('lowerAscii') && stringMethods.includes('split'), String(stringMethods));

    // Typing: a new `${` being written, a kind, a template key (the text does not compile meanwhile).
    const typing = text.replace(
      '          replicas: 3\n',
      '          replicas: 3\n          minReadySeconds: ${servi\n',
    );
    await edit(typing);
    const partial = labels(await complete(positionOf(typing, '${servi', 7)));
    assert.ok(partial.includes('service'));
    const kinds = labels(await complete(positionOf(typing, 'kind: Service', 6)));
    assert.ok(kinds.includes('Service') && kinds.includes('ConfigMap'), 'kinds of apiVersion v1');
    assert.ok(!kinds.includes('Deployment'), 'not of another apiVersion');
    const withKey = text.replace('          replicas: 3\n', '          replicas: 3\n          rev\n');
    await edit(withKey);
    const keys = labels(await complete(positionOf(withKey, '          rev', 13)));
    assert.ok(keys.includes('revisionHistoryLimit') && keys.includes('strategy'), String(keys));
    assert.ok(!keys.includes('replicas'), 'a key already present is not offered again');
    await edit(text);
  });

  test('hover: a node, a field with its schema, the type of the expression', async () => {
    const hover = (position: { line: number; character: number }) =>
      lsp.connection.sendRequest('textDocument/hover', {
        textDocument: { uri },
        position,
      }) as Promise<Hover | null>;
    const node = hoverText(await hover(positionOf(text, '${deployment.status.availableReplicas', 4)));
    assert.match(node, /apps\/v1 Deployment/);
    const field = hoverText(await hover(positionOf(text, 'availableReplicas}', 3)));
    assert.match(field, /availableReplicas`: `integer/);
    assert.match(field, /\$\{deployment\.status\.availableReplicas\}`: `int/);
    const key = hoverText(await hover(positionOf(text, 'replicas: 3', 2)));
    assert.match(key, /replicas`: `integer/);
    const service = hoverText(await hover(positionOf(text, 'id: service', 5)));
    assert.match(service, /v1 Service[\s\S]*depends on `deployment`/);
  });

  test('definition and references between ${node.…} and the node', async () => {
    const def = (await lsp.connection.sendRequest('textDocument/definition', {
      textDocument: { uri },
      position: positionOf(text, '${deployment.spec.selector', 4),
    })) as Location;
    assert.deepEqual(def.range.start, positionOf(text, 'id: deployment', 4));
    const refs = (await lsp.connection.sendRequest('textDocument/references', {
      textDocument: { uri },
      position: positionOf(text, 'id: deployment', 5),
      context: { includeDeclaration: false },
    })) as Location[];
    assert.deepEqual(
      refs.map((r) => r.range.start),
      [
        positionOf(text, '${deployment.status.conditions', 2),
        positionOf(text, '${deployment.status.availableReplicas', 2),
        positionOf(text, '${deployment.spec.selector', 2),
      ],
    );
  });

  test('document symbols: the RGD, its nodes and schema fields', async () => {
    const symbols = (await lsp.connection.sendRequest('textDocument/documentSymbol', {
      textDocument: { uri },
    })) as DocumentSymbol[];
    assert.equal(symbols[0]?.name, 'webapp.kro.run');
    const children = symbols[0]?.children?.map((c) => c.name);
    assert.deepEqual(children?.slice(0, 3), ['deployment', 'service', 'ingress']);
    assert.ok(children?.includes('schema.spec.image'));
  });

  test('krop blueprints: compiled, navigable, with their `target` field offered', async () => {
    const krop = readFileSync('test/fixtures/graph/valid/krop.yaml', 'utf8');
    const kropUri = fileUri('test/fixtures/graph/valid/krop.yaml');
    const published = lsp.diagnostics(kropUri, 1);
    lsp.open(kropUri, krop, 1);
    assert.deepEqual(await published, []);
    const def = (await lsp.connection.sendRequest('textDocument/definition', {
      textDocument: { uri: kropUri },
      position: positionOf(krop, 'size(peers)', 6),
    })) as Location;
    assert.deepEqual(def.range.start, positionOf(krop, 'id: peers', 4));
    const typed = `${krop}    - \n`;
    lsp.change(kropUri, typed, 2);
    const fields = labels(
      (await lsp.connection.sendRequest('textDocument/completion', {
        textDocument: { uri: kropUri },
        position: { line: typed.split('\n').length - 2, character: 6 },
      })) as CompletionItem[],
    );
    assert.ok(fields.includes('target') && fields.includes('externalRef'), String(fields));
  });

  test('multi-document files: a CRD beside a Graph is its schema; other manifests are left alone', async () => {
    const multi = `apiVersion: v1
kind: ConfigMap
metadata:
  name: plain
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: { kind: Widget, plural: widgets, singular: widget, listKind: WidgetList }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: { type: integer }
---
apiVersion: kro.run/v1alpha1
kind: Graph
metadata:
  name: g
  namespace: default
spec:
  nodes:
    - id: w
      template:
        apiVersion: example.com/v1
        kind: Widget
        metadata:
          name: w
        spec:
          size: 1
    - id: cm
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: cm
        data:
          size: \${string(w.spec.sise)}
`;
    const other = fileUri('test/unit/lsp/fixtures/multi.yaml');
    const published = lsp.diagnostics(other, 1);
    lsp.open(other, multi, 1);
    const diags = await published;
    assert.deepEqual(
      diags.map((d) => [d.code, d.range.start]),
      [['KG3004', positionOf(multi, 'sise')]],
    );
    const fields = labels(
      (await lsp.connection.sendRequest('textDocument/completion', {
        textDocument: { uri: other },
        position: positionOf(multi, 'w.spec.sise', 7),
      })) as CompletionItem[],
    );
    assert.ok(fields.includes('size'), 'fields from the CRD in the same file');
    const fn = (await lsp.connection.sendRequest('textDocument/hover', {
      textDocument: { uri: other },
      position: positionOf(multi, 'string(w.spec', 2),
    })) as Hover;
    assert.match(hoverText(fn), /`string\(int\): string`/, 'the overloads of a function');
  });
});

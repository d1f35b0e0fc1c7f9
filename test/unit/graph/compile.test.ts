// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests quote kgraph ${…} syntax
/**
 * The compiled model: order, layers, dependencies, edges, captures, slots, gating, routing.
 * (Rule diagnostics are covered by fixtures.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type CompiledGraph,
  type CompileResult,
  compileYaml,
  frameNode,
  type ValueNode,
} from '../../../src/graph/index.ts';
import { statusFieldTypes, typecheckGraph } from '../../../src/graph/typecheck.ts';
import { offlineResolver } from './support.ts';

function compile(text: string): CompileResult {
  const results = compileYaml('test.yaml', text, { resolver: offlineResolver(), typecheck: typecheckGraph });
  assert.equal(results.length, 1);
  return results[0]!;
}

function accepted(text: string): CompiledGraph {
  const r = compile(text);
  assert.deepEqual(r.diagnostics, []);
  assert.ok(r.graph);
  return r.graph;
}

const graph = (nodes: string) =>
  `apiVersion: kro.run/v1alpha1\nkind: Graph\nmetadata: {name: g, namespace: ns}\nspec:\n  nodes:\n${nodes}`;

describe('compiled model', () => {
  test('one ConfigMap template: resolved, namespaced, order [cm], layer 1', () => {
    const g = accepted(
      graph(`    - id: cm\n      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n`),
    );
    assert.equal(g.source, 'Graph');
    assert.equal(g.gating, 'scope');
    assert.deepEqual(g.root.order, ['cm']);
    const cm = frameNode(g.root, 'cm')!;
    assert.deepEqual(cm.resolved, {
      apiVersion: 'v1',
      group: '',
      version: 'v1',
      kind: 'ConfigMap',
      scope: 'Namespaced',
      resource: 'configmaps',
    });
    assert.equal(cm.applyLayer, 1);
    assert.deepEqual(cm.payload, {
      t: 'literal',
      value: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } },
    });
    assert.deepEqual(g.requiredKinds, [{ apiVersion: 'v1', kind: 'ConfigMap' }]);
  });

  test('def naming: order [naming, cm]; def adds no layer; the slot carries its references', () => {
    const g = accepted(
      graph(`    - id: cm
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: "\${naming.prefix + naming.app}"}
    - id: naming
      def: {prefix: a, app: b}
`),
    );
    assert.deepEqual(g.root.order, ['naming', 'cm']);
    assert.deepEqual(g.root.layers, [['naming'], ['cm']]);
    const cm = frameNode(g.root, 'cm')!;
    assert.deepEqual(cm.dependencies, ['naming']);
    const meta = (cm.payload as Extract<ValueNode, { t: 'object' }>).entries.find(
      ([k]) => k === 'metadata',
    )![1];
    const name = (meta as Extract<ValueNode, { t: 'object' }>).entries[0]![1];
    assert.equal(name.t, 'expr');
    if (name.t !== 'expr') return;
    assert.equal(name.slot.mode, 'standalone');
    assert.deepEqual(name.slot.path, ['metadata', 'name']);
    const expr = name.slot.parts[0];
    assert.ok(expr && typeof expr !== 'string');
    assert.equal(expr.cel, 'naming.prefix + naming.app');
    assert.deepEqual(
      expr.refs.map((r) => `${r.kind}:${r.target}:${r.fields.join('.')}`),
      ['node:naming:prefix', 'node:naming:app'],
    );
    assert.deepEqual(g.root.edges, [{ from: 'naming', to: 'cm', fields: ['metadata.name'] }]);
  });

  test('optional access to a later def is a hard dependency', () => {
    const g = accepted(
      graph(`    - id: cm
      def: {x: "\${later.?field.orValue('x')}"}
    - id: later
      def: {field: hi}
`),
    );
    assert.deepEqual(g.root.order, ['later', 'cm']);
    const ref = (frameNode(g.root, 'cm')!.payload as Extract<ValueNode, { t: 'object' }>).entries[0]![1];
    assert.ok(
      ref.t === 'expr' && typeof ref.slot.parts[0] !== 'string' && ref.slot.parts[0]!.refs[0]!.optional,
    );
  });

  test('diamond: merge depends on both; layers 1, 2, 2, 3', () => {
    const g = accepted(
      graph(`    - id: merge
      def: {l: "\${left.metadata.name}", r: "\${right.metadata.name}"}
    - id: left
      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: "\${root.metadata.name}-l"}}
    - id: right
      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: "\${root.metadata.name}-r"}}
    - id: root
      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: root}}
`),
    );
    assert.deepEqual(g.root.order, ['root', 'left', 'right', 'merge']);
    assert.deepEqual(frameNode(g.root, 'merge')!.dependencies, ['left', 'right']);
    // merge is a def: it does not add a layer beyond its deepest dependency.
    assert.deepEqual(g.root.layers, [[], ['root'], ['left', 'right', 'merge']]);
  });

  test('string template slots and forEach dimensions', () => {
    const g = accepted(
      graph(`    - id: src
      def: {regions: [us, eu]}
    - id: cms
      forEach:
        - region: \${src.regions}
      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: "cfg-\${region}"}}
`),
    );
    const cms = frameNode(g.root, 'cms')!;
    assert.deepEqual(
      cms.forEach.map((f) => [f.name, f.slot.mode, f.slot.path]),
      [['region', 'standalone', ['forEach', 'region']]],
    );
    const meta = (cms.payload as Extract<ValueNode, { t: 'object' }>).entries.find(
      ([k]) => k === 'metadata',
    )![1];
    const name = (meta as Extract<ValueNode, { t: 'object' }>).entries[0]![1];
    assert.ok(name.t === 'expr');
    assert.equal(name.slot.mode, 'template');
    assert.equal(name.slot.parts[0], 'cfg-');
    const e = name.slot.parts[1];
    assert.ok(e && typeof e !== 'string');
    assert.deepEqual(e.refs, [{ name: 'region', kind: 'iterator', fields: [], optional: false }]);
    assert.deepEqual(cms.dependencies, ['src']);
  });

  test('includeWhen self-reference creates no edge; readyWhen creates none', () => {
    const g = accepted(
      graph(`    - id: a
      def: {on: true}
      includeWhen: ["\${a.on}"]
      readyWhen: ["\${a.on}"]
`),
    );
    assert.deepEqual(frameNode(g.root, 'a')!.dependencies, []);
    assert.equal(frameNode(g.root, 'a')!.includeWhen.length, 1);
    assert.equal(frameNode(g.root, 'a')!.readyWhen.length, 1);
  });

  test('capture: the captured parent node is a dependency of the graph node', () => {
    const g = accepted(
      graph(`    - id: sub
      graph:
        nodes:
          - id: inner
            def: {v: "\${shared.app}"}
    - id: shared
      def: {app: web}
    - id: reader
      def: {v: "\${sub.inner.v}"}
`),
    );
    const sub = frameNode(g.root, 'sub')!;
    assert.deepEqual(sub.dependencies, ['shared']);
    assert.deepEqual(sub.captures, ['shared']);
    assert.deepEqual(g.root.order, ['shared', 'sub', 'reader']);
    assert.deepEqual(frameNode(g.root, 'reader')!.dependencies, ['sub']);
    const inner = frameNode(sub.children!, 'inner')!;
    assert.equal(inner.path, 'sub.inner');
    assert.deepEqual(inner.dependencies, []);
    const v = (inner.payload as Extract<ValueNode, { t: 'object' }>).entries[0]![1];
    assert.ok(v.t === 'expr' && typeof v.slot.parts[0] !== 'string');
    assert.deepEqual(v.slot.parts[0]!.refs[0]!.kind, 'capture');
    assert.deepEqual(
      g.root.edges.find((e) => e.to === 'sub'),
      { from: 'shared', to: 'sub', fields: ['inner.v'] },
    );
  });

  test('a grandparent capture bubbles up: dependency of the outer graph node, captured by both', () => {
    const g = accepted(
      graph(`    - id: outer
      graph:
        nodes:
          - id: inner
            graph:
              nodes:
                - id: leaf
                  def: {v: "\${top.x}"}
    - id: top
      def: {x: 1}
`),
    );
    const outer = frameNode(g.root, 'outer')!;
    assert.deepEqual(outer.dependencies, ['top']);
    assert.deepEqual(outer.captures, ['top']);
    const inner = frameNode(outer.children!, 'inner')!;
    assert.deepEqual(inner.dependencies, []);
    assert.deepEqual(inner.captures, ['top']);
    assert.equal(frameNode(inner.children!, 'leaf')!.path, 'outer.inner.leaf');
    assert.deepEqual(g.root.edges, [{ from: 'top', to: 'outer', fields: ['inner.leaf.v'] }]);
  });

  test('shadowing: a child binds its own cfg and the parent cfg is not captured', () => {
    const g = accepted(
      graph(`    - id: cfg
      def: {name: parent}
    - id: sub
      graph:
        nodes:
          - id: cfg
            def: {name: child}
          - id: user
            def: {v: "\${cfg.name}"}
`),
    );
    const sub = frameNode(g.root, 'sub')!;
    assert.deepEqual(sub.dependencies, []);
    assert.deepEqual(sub.captures, []);
    assert.deepEqual(frameNode(sub.children!, 'user')!.dependencies, ['cfg']);
  });

  test('dynamic node: no resolved kind, hasDynamic set, forEach identity still enforced (design/graph.md §15)', () => {
    const g = accepted(
      graph(`    - id: crd
      ref: {apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: w.example.com}}
    - id: widgets
      ref:
        apiVersion: \${crd.spec.group + '/' + crd.spec.versions[0].name}
        kind: \${crd.spec.names.kind}
        metadata: {selector: {}}
`),
    );
    const w = frameNode(g.root, 'widgets')!;
    assert.equal(w.dynamic, true);
    assert.equal(w.resolved, undefined);
    assert.equal(w.refMode, 'selector');
    assert.equal(g.hasDynamic, true);
    assert.deepEqual(g.requiredKinds, [
      { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' },
    ]);
    const r = compile(
      graph(`    - id: src
      def: {kinds: [A, B]}
    - id: objs
      forEach: [{k: "\${src.kinds}"}]
      template: {apiVersion: example.com/v1, kind: "\${k}", metadata: {name: fixed}}
`),
    );
    assert.deepEqual(
      r.diagnostics.map((d) => d.code),
      ['KG2067'],
    );
  });

  test('patch endpoints and ref modes', () => {
    const g = accepted(
      graph(`    - id: s
      patch: {apiVersion: apps/v1, kind: Deployment, metadata: {name: a}, status: {readyReplicas: 1}}
    - id: m
      patch: {apiVersion: v1, kind: ConfigMap, metadata: {name: a, labels: {x: y}}}
    - id: byName
      ref: {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}
    - id: byExpr
      ref: {apiVersion: v1, kind: ConfigMap, metadata: {selector: "\${byName.data}"}}
`),
    );
    assert.equal(frameNode(g.root, 's')!.patchEndpoint, 'status');
    assert.equal(frameNode(g.root, 'm')!.patchEndpoint, 'main');
    assert.equal(frameNode(g.root, 'byName')!.refMode, 'name');
    assert.equal(frameNode(g.root, 'byExpr')!.refMode, 'selectorExpr');
  });

  test('RGD: ready-gating, schema references, status projections with soft reads (design/graph.md §1)', () => {
    const r = compile(`apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata: {name: app}
spec:
  schema:
    apiVersion: v1alpha1
    kind: App
    spec: {name: string}
    status:
      cm: \${cm.metadata.name}
      conn: {host: "\${cm.data.host}:\${string(schema.spec.name)}"}
  resources:
    - id: cm
      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: "\${schema.spec.name}"}}
`);
    assert.deepEqual(r.diagnostics, []);
    const g = r.graph!;
    assert.equal(g.source, 'KroRGD');
    assert.equal(g.gating, 'ready');
    assert.equal(g.rgd?.kind, 'App');
    assert.equal(g.rgd?.group, 'kro.run');
    assert.deepEqual(
      g.rgd?.status.map((s) => [s.path, s.slot.mode, s.reads]),
      [
        [['cm'], 'standalone', ['cm']],
        [['conn', 'host'], 'template', ['cm', 'schema']],
      ],
    );
    // References to schema are not edges between resources.
    assert.deepEqual(frameNode(g.root, 'cm')!.dependencies, []);
    assert.deepEqual(g.root.order, ['cm']);
  });

  test('krop: targets are carried per node; omitted target is consumer', () => {
    const r = compile(`apiVersion: krop.opendefense.cloud/v1alpha1
kind: ResourceGraphDefinition
metadata: {name: p}
spec:
  schema: {apiVersion: v1alpha1, kind: P, group: krop.opendefense.cloud, spec: {name: string}}
  resources:
    - id: a
      target: host
      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: x}}
    - id: b
      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: "\${a.metadata.name}"}}
`);
    assert.deepEqual(r.diagnostics, []);
    assert.equal(r.graph!.source, 'KropRGD');
    assert.deepEqual(
      r.graph!.root.nodes.map((n) => [n.id, n.target]),
      [
        ['a', 'host'],
        ['b', 'consumer'],
      ],
    );
  });

  test('a cycle leaves order and layers empty and names the cycle', () => {
    const r = compile(
      graph(`    - id: a
      def: {x: "\${b.x}"}
    - id: b
      def: {x: "\${a.x}"}
`),
    );
    assert.deepEqual(
      r.diagnostics.map((d) => d.message),
      ['graph contains a cycle: a → b → a'],
    );
    assert.deepEqual(r.graph!.root.order, []);
    assert.equal(r.accepted, false);
  });

  test('the compiled model is plain JSON data', () => {
    const g = accepted(graph(`    - id: cm\n      def: {x: "\${1 + 2}"}\n`));
    assert.deepEqual(JSON.parse(JSON.stringify(g)), g);
  });
});

describe('RGD status type inference', () => {
  test('status field schemas come from the checked result types', () => {
    const r = compile(`apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata: {name: app}
spec:
  schema:
    apiVersion: v1alpha1
    kind: App
    spec: {name: string, replicas: integer}
    status:
      name: \${cm.metadata.name}
      replicas: \${schema.spec.replicas * 2}
      ready: \${cm.metadata.?uid.hasValue()}
      url: "http://\${cm.metadata.name}"
      keys: \${cm.?data.orValue({}).map(k, k)}
  resources:
    - id: cm
      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: "\${schema.spec.name}"}}
`);
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(statusFieldTypes(r.graph!), [
      { path: ['name'], schema: { type: 'string' } },
      { path: ['replicas'], schema: { type: 'integer' } },
      { path: ['ready'], schema: { type: 'boolean' } },
      { path: ['url'], schema: { type: 'string' } },
      { path: ['keys'], schema: { type: 'array', items: { type: 'string' } } },
    ]);
  });
});

describe('never-evaluated regions', () => {
  test('a map key containing ${ stays literal, with a KG1004 warning; the graph is accepted', () => {
    const r = compile(
      graph(`    - id: cm
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: a}
        data:
          "\${not.a.key}": value
`),
    );
    assert.equal(r.accepted, true);
    assert.deepEqual(
      r.diagnostics.map((d) => [d.severity, d.code, d.path, d.location?.line, d.location?.column]),
      [['warning', 'KG1004', 'spec.nodes[0].template.data["${not.a.key}"]', 12, 11]],
    );
    const cm = frameNode(r.graph!.root, 'cm')!;
    assert.equal(cm.payload?.t, 'literal');
  });
});

describe('type-check messages', () => {
  test('a selection of an undeclared field reads "undefined field \'x\'" once, not nested (KG3004)', () => {
    const r = compile(
      graph(`    - id: a
      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}
    - id: b
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: b}
        data:
          x: \${a.metadata.nam}
`),
    );
    assert.equal(r.accepted, false);
    assert.deepEqual(
      r.diagnostics.map((d) => [d.code, d.message]),
      [['KG3004', "${a.metadata.nam}: undefined field 'nam'"]],
    );
  });
});

/**
 * `kgraph graph` pictures, through the real binary: in `-o svg` no edge label
 * runs into a node, includeWhen / forEach / readyWhen nodes are marked and a legend explains the
 * marks; `-o json` is the documented graph document (docs/cli.md), not the compiler's model.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '../../..');
const kgraph = (...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'bin/kgraph.js'), ...args], { encoding: 'utf8', cwd: root });

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  what: string;
}

/** The `<g>` elements of a Graphviz SVG of one class, with their title. */
function groups(svg: string, cls: string): { title: string; body: string }[] {
  return svg
    .split(/<g id="[^"]*" class="/)
    .slice(1)
    .filter((g) => g.startsWith(`${cls}"`))
    .map((g) => ({
      title: /<title>([^<]*)<\/title>/.exec(g)?.[1] ?? '',
      body: g.slice(0, g.indexOf('</g>')),
    }));
}

function nodeBoxes(svg: string): Box[] {
  return groups(svg, 'node').map(({ title, body }) => {
    const pts: number[][] = [];
    for (const m of body.matchAll(/(?:points|d)="([^"]+)"/g))
      for (const p of m[1]!.matchAll(/(-?[\d.]+),(-?[\d.]+)/g)) pts.push([Number(p[1]), Number(p[2])]);
    for (const m of body.matchAll(/cx="([-\d.]+)" cy="([-\d.]+)" rx="([-\d.]+)" ry="([-\d.]+)"/g)) {
      const [cx, cy, rx, ry] = m.slice(1).map(Number) as [number, number, number, number];
      pts.push([cx - rx, cy - ry], [cx + rx, cy + ry]);
    }
    const xs = pts.map((p) => p[0]!);
    const ys = pts.map((p) => p[1]!);
    return {
      x0: Math.min(...xs),
      x1: Math.max(...xs),
      y0: Math.min(...ys),
      y1: Math.max(...ys),
      what: title,
    };
  });
}

/**
 * Edge label lines, at the width a viewer draws them: 0.6 em a character, the width of a monospace
 * font (and more than Graphviz reserves for Helvetica, which a viewer without it draws wider).
 */
function labelBoxes(svg: string): { boxes: Box[]; fonts: Set<string> } {
  const boxes: Box[] = [];
  const fonts = new Set<string>();
  for (const { title, body } of groups(svg, 'edge')) {
    for (const m of body.matchAll(
      /<text[^>]*? text-anchor="(\w+)" x="([-\d.]+)" y="([-\d.]+)" font-family="([^"]+)" font-size="([\d.]+)"[^>]*>([^<]*)<\/text>/g,
    )) {
      const [, anchor, xs, ys, font, fs, text] = m as unknown as string[];
      fonts.add(font!);
      const size = Number(fs);
      const width = text!.replace(/&[#\w]+;/g, '_').length * size * 0.6;
      const x = Number(xs);
      const x0 = anchor === 'middle' ? x - width / 2 : anchor === 'end' ? x - width : x;
      boxes.push({
        x0,
        x1: x0 + width,
        y0: Number(ys) - size * 0.8,
        y1: Number(ys) + size * 0.2,
        what: `${title}: ${text}`,
      });
    }
  }
  return { boxes, fonts };
}

const examples = ['examples/graphs', 'examples/rgd'].flatMap((d) =>
  readdirSync(join(root, d))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => join(d, f)),
);

describe('kgraph graph pictures', () => {
  it('-o svg: no edge label overlaps a node, in any example', () => {
    let labels = 0;
    for (const file of examples) {
      const r = kgraph('graph', file, '-o', 'svg');
      // 30-platform.yaml uses the kinds of the other RGDs (not given here): drawn all the same.
      assert.match(r.stdout, /<svg/, `${file}: ${r.stderr}`);
      const nodes = nodeBoxes(r.stdout);
      const { boxes, fonts } = labelBoxes(r.stdout);
      labels += boxes.length;
      assert.deepEqual([...fonts], boxes.length > 0 ? ['Courier,monospace'] : [], file);
      for (const l of boxes)
        for (const n of nodes)
          assert.ok(
            !(l.x0 < n.x1 && l.x1 > n.x0 && l.y0 < n.y1 && l.y1 > n.y0),
            `${file}: label "${l.what}" overlaps node ${n.what}`,
          );
    }
    assert.ok(labels > 50, `${labels} labels checked`);
  });

  it('-o svg marks includeWhen (dashed), forEach (double) and readyWhen (bold) nodes, with a legend', () => {
    const r = kgraph('graph', 'examples/graphs/showcase.yaml', '-o', 'svg');
    assert.equal(r.status, 0, r.stderr);
    const node = (title: string) => groups(r.stdout, 'node').find((g) => g.title === title)?.body ?? '';
    assert.match(node('debug'), /stroke-dasharray/);
    assert.match(node('debug'), />includeWhen \$\{app\.debug\}</);
    assert.equal(node('tierConfigs').match(/<polygon/g)?.length, 2, 'two outlines');
    assert.match(node('tierConfigs'), />forEach tier</);
    assert.match(node('settings'), /stroke-width="2"/);
    assert.match(node('settings'), />readyWhen \$\{has\(settings\.data\.tiers\)\}</);
    const legend = groups(r.stdout, 'cluster').find((g) => g.title === 'cluster_legend');
    assert.ok(legend, 'a legend cluster');
    const samples = groups(r.stdout, 'node').filter((g) => g.title.startsWith('kgraph:legend:'));
    const texts = samples.map((g) => [...g.body.matchAll(/>([^<>]+)<\/text>/g)].map((m) => m[1]).join(' '));
    for (const t of [
      'template',
      'ref',
      'def',
      'patch',
      'includeWhen (may be left out)',
      'forEach (a collection)',
      'readyWhen (own readiness)',
    ])
      assert.ok(texts.includes(t), `legend entry "${t}" in ${JSON.stringify(texts)}`);
  });

  it('-o json is the documented graph: nodes, edges and kinds', () => {
    const r = kgraph('graph', 'examples/rgd/10-webapp.yaml', '-o', 'json');
    assert.equal(r.status, 0, r.stderr);
    const g = JSON.parse(r.stdout) as {
      format: string;
      kind: string;
      name: string;
      instance: { apiVersion: string; kind: string };
      nodes: { id: string; kind: string; resource: { kind: string } | null; includeWhen: string[] }[];
      edges: { from: string; to: string; type: string; fields: string[] }[];
      kinds: { apiVersion: string; kind: string; nodes: string[] }[];
    };
    assert.deepEqual(Object.keys(g), [
      'format',
      'name',
      'kind',
      'apiVersion',
      'instance',
      'nodes',
      'edges',
      'kinds',
    ]);
    assert.equal(g.format, 'kgraph.graph/v1');
    assert.equal(g.kind, 'ResourceGraphDefinition');
    assert.deepEqual(g.instance, { apiVersion: 'kro.run/v1alpha1', kind: 'WebApplication' });
    const ids = new Set(g.nodes.map((n) => n.id));
    assert.ok(ids.has('schema') && ids.has('deployment') && ids.has('service'));
    for (const e of g.edges) {
      assert.ok(ids.has(e.from) && ids.has(e.to), `edge ${e.from} → ${e.to} between nodes`);
      assert.ok(['dependency', 'schema', 'status'].includes(e.type));
      assert.ok(e.fields.length > 0);
    }
    assert.ok(g.edges.some((e) => e.from === 'deployment' && e.to === 'service' && e.type === 'dependency'));
    assert.ok(g.edges.some((e) => e.from === 'schema' && e.to === 'deployment' && e.type === 'schema'));
    assert.ok(
      g.kinds.some(
        (k) => k.apiVersion === 'apps/v1' && k.kind === 'Deployment' && k.nodes.includes('deployment'),
      ),
    );
    assert.ok(g.nodes.find((n) => n.id === 'ingress')?.includeWhen.length === 1);
    // Not the compiler's model.
    assert.doesNotMatch(r.stdout, /"payload"|"docPath"|"declIndex"|"slot"/);
  });
});

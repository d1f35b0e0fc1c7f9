/**
 * Writes the generated files of the Helm chart (charts/kgraph) from their one source each:
 *
 *   crds/*.yaml         the Graph, RGD, GraphRevision and GraphRollout CRDs copied byte for byte from deploy/crds/ (themselves generated
 *                       from graphCrd(), rgdCrd(), graphRevisionCrd() and graphRolloutCrd()), and the planes CRDs from blueprintCrd() and
 *                       consumerClusterCrd(), the objects `kgraph controller --planes` installs
 *   values.schema.json  from values.yaml: each value's type from its default, plus the enums, patterns
 *                       and free-form objects listed below
 *   README.md           the values table from values.yaml's `# --` comments, inside README.md.gotmpl
 *
 *   node --import tsx scripts/chart.ts           rewrite them
 *   node --import tsx scripts/chart.ts --check   exit 1 naming each file that drifted
 *
 * test/unit/charts/chart.test.ts runs the check.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isMap, isScalar, isSeq, type Node, parseDocument, stringify, type YAMLMap } from 'yaml';
import { blueprintCrd, consumerClusterCrd } from '../src/controller/planes/crds.ts';

export const root = resolve(import.meta.dirname, '..');
export const chartDir = join(root, 'charts/kgraph');

/** Values whose content is Kubernetes' or the user's (a PodSecurityContext, labels…): any keys allowed. */
const FREE_FORM = new Set([
  'additionalLabels',
  'serviceAccount.annotations',
  'deployment.podAnnotations',
  'deployment.podLabels',
  'deployment.podSecurityContext',
  'deployment.securityContext',
  'deployment.resources',
  'deployment.nodeSelector',
  'deployment.affinity',
  'metrics.serviceMonitor.additionalLabels',
]);

const DURATION = { pattern: '^[0-9]+(ms|s|m|h)?$' };
const BIND_ADDRESS = { pattern: '^[^:]*:[0-9]+$' };

/** What a value's default cannot say. */
const CONSTRAINTS: Record<string, Record<string, unknown>> = {
  'image.pullPolicy': { enum: ['Always', 'IfNotPresent', 'Never'] },
  'rbac.mode': { enum: ['aggregation', 'unrestricted'] },
  'deployment.replicaCount': { minimum: 0 },
  'deployment.terminationGracePeriodSeconds': { minimum: 0 },
  'config.leaderElectionLeaseDuration': DURATION,
  'config.metricsBindAddress': BIND_ADDRESS,
  'config.healthProbeBindAddress': BIND_ADDRESS,
  'config.graphConcurrentReconciles': { minimum: 1 },
  'config.dynamicControllerConcurrentReconciles': { minimum: 1 },
  'config.rgdMaxGraphRevisions': { minimum: 0 },
  'config.logLevel': { enum: ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] },
  'config.logEncoder': { enum: ['json', 'console'] },
  'metrics.service.type': { enum: ['ClusterIP', 'NodePort', 'LoadBalancer'] },
  'metrics.service.port': { minimum: 1, maximum: 65535 },
  'metrics.serviceMonitor.interval': DURATION,
  'metrics.serviceMonitor.scrapeTimeout': DURATION,
  watchNamespaces: { items: { type: 'string', minLength: 1 } },
  'deployment.extraArgs': { items: { type: 'string' } },
};

export interface ValueDoc {
  path: string;
  type: string;
  default: unknown;
  description: string;
}

/** The `# --` paragraph before a key (yaml puts a map's first comment on the map itself). */
function description(map: YAMLMap, index: number): string | undefined {
  const pair = map.items[index]!;
  const raw = (pair.key as Node).commentBefore ?? (index === 0 ? map.commentBefore : undefined);
  if (!raw) return undefined;
  const last = raw.split(/\n\s*\n/).pop()!;
  const lines = last.split('\n').map((l) => l.replace(/^ ?/, ''));
  if (!lines[0]?.startsWith('-- ')) return undefined;
  return lines.join(' ').slice(3).trim();
}

function typeOf(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Every documented value of values.yaml, in file order; a nested map without a comment is walked. */
export function valueDocs(valuesYaml: string): ValueDoc[] {
  const doc = parseDocument(valuesYaml);
  const out: ValueDoc[] = [];
  const walk = (map: YAMLMap, prefix: string): void => {
    map.items.forEach((pair, i) => {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const path = prefix ? `${prefix}.${key}` : key;
      const text = description(map, i);
      if (text === undefined && isMap(pair.value)) {
        walk(pair.value, path);
        return;
      }
      if (text === undefined) throw new Error(`charts/kgraph/values.yaml: ${path} has no '# --' description`);
      const value =
        isMap(pair.value) || isSeq(pair.value) ? pair.value.toJSON() : (pair.value as Node).toJSON();
      out.push({ path, type: typeOf(value), default: value, description: text });
    });
  };
  if (!isMap(doc.contents)) throw new Error('charts/kgraph/values.yaml: not a map');
  walk(doc.contents, '');
  return out;
}

type Schema = Record<string, unknown> & { properties?: Record<string, Schema> };

/** The JSON schema of values.yaml: fixed keys are closed objects, FREE_FORM ones take any keys. */
export function valuesSchema(docs: readonly ValueDoc[]): Schema {
  const top: Schema = { type: 'object', additionalProperties: false, properties: {} };
  for (const d of docs) {
    const parts = d.path.split('.');
    let node = top;
    for (const p of parts.slice(0, -1)) {
      node.properties ??= {};
      node.properties[p] ??= { type: 'object', additionalProperties: false, properties: {} };
      node = node.properties[p]!;
    }
    const leaf: Schema = { description: d.description };
    if (d.type === 'object') {
      if (!FREE_FORM.has(d.path)) throw new Error(`values.yaml: ${d.path} is a map: list it in FREE_FORM`);
      leaf.type = 'object';
    } else {
      leaf.type = d.type;
    }
    Object.assign(leaf, CONSTRAINTS[d.path] ?? {});
    node.properties ??= {};
    node.properties[parts.at(-1)!] = leaf;
  }
  // `global` is Helm's: a parent chart hands it to every subchart, so it must pass when kgraph is one.
  top.properties!.global = { type: 'object', description: "Helm's global values (from a parent chart)." };
  return { $schema: 'https://json-schema.org/draft-07/schema#', title: 'kgraph chart values', ...top };
}

function cell(s: string): string {
  return s.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

/** The values table: key, type, default (as JSON), description. */
export function valuesTable(docs: readonly ValueDoc[]): string {
  const rows = docs.map(
    (d) => `| \`${d.path}\` | ${d.type} | \`${cell(JSON.stringify(d.default))}\` | ${cell(d.description)} |`,
  );
  return ['| Key | Type | Default | Description |', '|---|---|---|---|', ...rows].join('\n');
}

const CRD_HEADER = (from: string): string =>
  `# Generated by scripts/chart.ts from ${from}; test/unit/charts/chart.test.ts keeps them equal.\n`;

/** Every generated file of the chart, by path relative to the chart directory. */
export function chartFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const deployCrds = join(root, 'deploy/crds');
  for (const f of readdirSync(deployCrds)
    .filter((n) => n.endsWith('.yaml'))
    .sort()) {
    files.set(`crds/${f}`, readFileSync(join(deployCrds, f), 'utf8'));
  }
  for (const [crd, fn] of [
    [blueprintCrd(), 'blueprintCrd()'],
    [consumerClusterCrd(), 'consumerClusterCrd()'],
  ] as const) {
    const name = (crd.metadata as { name: string }).name;
    files.set(`crds/${name}.yaml`, CRD_HEADER(`${fn} in src/controller/planes/crds.ts`) + stringify(crd));
  }
  const docs = valueDocs(readFileSync(join(chartDir, 'values.yaml'), 'utf8'));
  files.set('values.schema.json', `${JSON.stringify(valuesSchema(docs), null, 2)}\n`);
  const template = readFileSync(join(chartDir, 'README.md.gotmpl'), 'utf8');
  files.set('README.md', template.replace('{{ values }}', valuesTable(docs)));
  return files;
}

/** The generated files whose content on disk differs (or that are missing), and stale CRD files. */
export function drift(): string[] {
  const files = chartFiles();
  const out: string[] = [];
  for (const [rel, content] of files) {
    let disk: string | undefined;
    try {
      disk = readFileSync(join(chartDir, rel), 'utf8');
    } catch {
      disk = undefined;
    }
    if (disk !== content) out.push(rel);
  }
  for (const f of readdirSync(join(chartDir, 'crds'))) {
    if (!files.has(`crds/${f}`)) out.push(`crds/${f} (not generated: remove it)`);
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  if (process.argv.includes('--check')) {
    const stale = drift();
    for (const f of stale) console.error(`charts/kgraph/${f} differs from what scripts/chart.ts writes`);
    process.exit(stale.length > 0 ? 1 : 0);
  }
  for (const [rel, content] of chartFiles()) writeFileSync(join(chartDir, rel), content);
}

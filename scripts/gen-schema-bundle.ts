/**
 * Regenerates schema-data/kubernetes-builtin.json.gz, the offline bundle of built-in Kubernetes
 * schemas (see schema-data/README.md). It starts our own control plane (tools/kube-testenv), reads
 * `/openapi/v3` and every built-in group-version document plus discovery (for scope and plural),
 * strips descriptions, keeps only the components the kinds reach, and writes sorted, gzipped JSON.
 *
 * Usage: npx tsx scripts/gen-schema-bundle.ts [--out FILE] [--binary PATH]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { KubeConfig } from '@kubernetes/client-node';
import { isRecord } from '../src/diag/record.ts';
import { repoRoot, startLocalControlPlane } from '../src/localplane/localControlPlane.ts';
import { collectRefs, type OpenAPISchema } from '../src/schema/openapi.ts';
import { BUNDLE_FORMAT, type BundleKind, type SchemaBundle } from '../src/schema/sources/bundle.ts';
import {
  documentComponents,
  findKindComponent,
  stripDescriptions,
} from '../src/schema/sources/openapiDocs.ts';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const out = arg('--out') ?? join(repoRoot, 'schema-data', 'kubernetes-builtin.json.gz');

async function getJSON(kc: KubeConfig, server: string, path: string): Promise<unknown> {
  const options: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(options);
  const url = new URL(path, server);
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        ...options,
        method: 'GET',
        hostname: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        headers: { ...(options.headers ?? {}), Accept: 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 0) >= 300)
            reject(new Error(`GET ${path}: HTTP ${res.statusCode}: ${body.slice(0, 200)}`));
          else {
            try {
              resolve(JSON.parse(body));
            } catch (err) {
              reject(err);
            }
          }
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Objects with sorted keys, so the bundle is byte-for-byte reproducible. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) out[k] = sortKeys(value[k]);
  return out;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-bundle-'));
  const binary = arg('--binary');
  const plane = await startLocalControlPlane({ dataDir, ...(binary ? { binary } : {}) });
  try {
    const kc = new KubeConfig();
    kc.loadFromFile(plane.kubeconfig);
    const get = (path: string) => getJSON(kc, plane.server, path);

    const version = await get('/version');
    const kubernetesVersion =
      isRecord(version) && typeof version.gitVersion === 'string' ? version.gitVersion : '?';
    const index = await get('/openapi/v3');
    const paths = isRecord(index) && isRecord(index.paths) ? index.paths : {};

    const schemas: Record<string, OpenAPISchema> = {};
    const kinds: BundleKind[] = [];
    let conflicts = 0;
    for (const [key, entry] of Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))) {
      const m = /^api\/(v1)$|^apis\/([^/]+)\/([^/]+)$/.exec(key);
      if (!m || !isRecord(entry) || typeof entry.serverRelativeURL !== 'string') continue;
      const group = m[2] ?? '';
      const ver = m[1] ?? m[3]!;
      const [doc, discovery] = await Promise.all([get(entry.serverRelativeURL), get(`/${key}`)]);
      const components = documentComponents(doc);
      for (const [name, schema] of Object.entries(components)) {
        const stripped = stripDescriptions(schema);
        const existing = schemas[name];
        if (existing && JSON.stringify(sortKeys(existing)) !== JSON.stringify(sortKeys(stripped))) {
          // The same component differs between documents only in its x-kubernetes-group-version-kind list
          // (e.g. DeleteOptions lists the kinds of each group); merge those lists.
          const gvks = (s: OpenAPISchema) => s['x-kubernetes-group-version-kind'] ?? [];
          const { 'x-kubernetes-group-version-kind': _a, ...restA } = existing;
          const { 'x-kubernetes-group-version-kind': _b, ...restB } = stripped;
          if (JSON.stringify(sortKeys(restA)) === JSON.stringify(sortKeys(restB))) {
            const seen = new Set<string>();
            existing['x-kubernetes-group-version-kind'] = [...gvks(existing), ...gvks(stripped)].filter(
              (g) => {
                const k = `${g.group}/${g.version}/${g.kind}`;
                if (seen.has(k)) return false;
                seen.add(k);
                return true;
              },
            );
          } else {
            conflicts++;
            process.stderr.write(`component ${name} differs between documents; the first one is kept\n`);
          }
        }
        schemas[name] ??= stripped;
      }
      const resources = isRecord(discovery) && Array.isArray(discovery.resources) ? discovery.resources : [];
      for (const r of resources) {
        if (!isRecord(r) || typeof r.name !== 'string' || r.name.includes('/') || typeof r.kind !== 'string')
          continue;
        const component = findKindComponent(components, group, ver, r.kind);
        if (!component) {
          process.stderr.write(`no schema for ${key} ${r.kind}; skipped\n`);
          continue;
        }
        kinds.push({
          group,
          version: ver,
          kind: r.kind,
          plural: r.name,
          namespaced: r.namespaced === true,
          schema: component,
        });
      }
    }

    // Keep only what the kinds reach.
    const reachable = new Set<string>();
    for (const k of kinds) {
      reachable.add(k.schema);
      collectRefs(schemas[k.schema]!, schemas, reachable);
    }
    const kept: Record<string, OpenAPISchema> = {};
    for (const name of [...reachable].sort()) if (schemas[name]) kept[name] = schemas[name];

    kinds.sort((a, b) =>
      `${a.group}/${a.version}/${a.kind}`.localeCompare(`${b.group}/${b.version}/${b.kind}`),
    );
    const bundle: SchemaBundle = { format: BUNDLE_FORMAT, kubernetesVersion, schemas: kept, kinds };
    const json = JSON.stringify(sortKeys(bundle));
    const gz = gzipSync(json, { level: 9 });
    writeFileSync(out, gz);
    process.stdout.write(
      `wrote ${out}: Kubernetes ${kubernetesVersion}, ${kinds.length} kinds, ${Object.keys(kept).length} schemas, ` +
        `${json.length} bytes JSON, ${gz.length} bytes gzip` +
        (conflicts ? `, ${conflicts} component name conflicts (first kept)` : '') +
        '\n',
    );
  } finally {
    await plane.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`gen-schema-bundle: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

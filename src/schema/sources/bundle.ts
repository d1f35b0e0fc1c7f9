/**
 * The offline schema source: the built-in Kubernetes kinds of the version kgraph targets, generated
 * from our own control plane by scripts/gen-schema-bundle.ts and committed as gzip JSON under
 * schema-data/. It answers when no CRD file and no cluster knows a kind, so validation works offline.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { isRecord } from '../../diag/record.ts';
import type { OpenAPISchema, SchemaComponents } from '../openapi.ts';
import { joinApiVersion, type ResolvedSchema, type SchemaSource } from './types.ts';

export const BUNDLE_FORMAT = 1;

export interface BundleKind {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  /** Component name of the kind's schema. */
  schema: string;
}

export interface SchemaBundle {
  format: typeof BUNDLE_FORMAT;
  /** e.g. `v1.37.2`, from the server's /version. */
  kubernetesVersion: string;
  /** All components of all built-in group-versions, merged (names are globally unique). */
  schemas: Record<string, OpenAPISchema>;
  kinds: BundleKind[];
}

export const DEFAULT_BUNDLE_PATH = fileURLToPath(
  new URL('../../../schema-data/kubernetes-builtin.json.gz', import.meta.url),
);

export function parseBundle(bytes: Buffer): SchemaBundle {
  const value: unknown = JSON.parse(gunzipSync(bytes).toString('utf8'));
  if (
    !isRecord(value) ||
    value.format !== BUNDLE_FORMAT ||
    !isRecord(value.schemas) ||
    !Array.isArray(value.kinds)
  ) {
    throw new Error(`not a kgraph schema bundle (format ${BUNDLE_FORMAT})`);
  }
  return value as unknown as SchemaBundle;
}

const loaded = new Map<string, SchemaBundle>();

/** Loads (once per path) and parses a bundle file. */
export function loadBundle(path: string = DEFAULT_BUNDLE_PATH): SchemaBundle {
  let b = loaded.get(path);
  if (!b) {
    b = parseBundle(readFileSync(path));
    loaded.set(path, b);
  }
  return b;
}

export class BundleSchemaSource implements SchemaSource {
  readonly name = 'bundle' as const;
  private readonly index = new Map<string, BundleKind>();

  constructor(readonly bundle: SchemaBundle) {
    for (const k of bundle.kinds) this.index.set(`${k.group}/${k.version}/${k.kind}`, k);
  }

  static fromFile(path: string = DEFAULT_BUNDLE_PATH): BundleSchemaSource {
    return new BundleSchemaSource(loadBundle(path));
  }

  get components(): SchemaComponents {
    return this.bundle.schemas;
  }

  /** Every kind of the bundle (editors complete apiVersion and kind from it). */
  kinds(): { group: string; version: string; kind: string }[] {
    return this.bundle.kinds.map(({ group, version, kind }) => ({ group, version, kind }));
  }

  describe(): string {
    return `the built-in Kubernetes ${this.bundle.kubernetesVersion} schemas`;
  }

  lookup(group: string, version: string, kind: string): ResolvedSchema | undefined {
    const k = this.index.get(`${group}/${version}/${kind}`);
    if (!k) return undefined;
    const schema = this.bundle.schemas[k.schema];
    if (!schema) return undefined;
    return {
      group,
      version,
      kind,
      schema,
      components: this.bundle.schemas,
      namespaced: k.namespaced,
      plural: k.plural,
      source: 'bundle',
      origin: `built-in Kubernetes ${this.bundle.kubernetesVersion}`,
    };
  }

  versionsOf(kind: string): string[] {
    return this.bundle.kinds.filter((k) => k.kind === kind).map((k) => joinApiVersion(k.group, k.version));
  }
}

/**
 * The documents `kgraph up` applies: every Kubernetes object in the YAML files under its directories, sorted
 * into what it applies and in which order.
 */
import { existsSync, readFileSync } from 'node:fs';
import YAML from 'yaml';
import { GRAPH_API_VERSION } from '../../controller/graph/names.ts';
import { KgraphError } from '../../diag/diagnostic.ts';
import { isRecord } from '../../diag/record.ts';
import { expandInputs } from '../../graph/validate.ts';
import type { KubeObject } from '../../kube/types.ts';

export interface LoadedDocument {
  file: string;
  object: KubeObject;
}

/**
 * The YAML files under `path`, recursively and sorted: the walker `kgraph validate` uses
 * (graph/validate.ts, one for every command); a missing directory holds none.
 */
function yamlFiles(path: string): string[] {
  if (!existsSync(path)) return [];
  return expandInputs([path], []);
}

/** Every Kubernetes object in the YAML files under `path` (recursively, sorted by path). */
export function loadDocuments(path: string): LoadedDocument[] {
  const out: LoadedDocument[] = [];
  for (const file of yamlFiles(path)) {
    for (const doc of YAML.parseAllDocuments(readFileSync(file, 'utf8'))) {
      if (doc.errors.length > 0) throw new KgraphError('KG6081', `${file}: ${doc.errors[0]?.message}`);
      const v: unknown = doc.toJSON();
      if (v === null || v === undefined) continue;
      if (
        !isRecord(v) ||
        typeof v.apiVersion !== 'string' ||
        typeof v.kind !== 'string' ||
        !isRecord(v.metadata) ||
        typeof v.metadata.name !== 'string'
      )
        throw new KgraphError('KG6081', `${file}: every document needs apiVersion, kind and metadata.name`);
      out.push({ file, object: v as KubeObject });
    }
  }
  return out;
}

export interface UpPlan {
  /** Applied first and waited for (Established). */
  crds: LoadedDocument[];
  /** Namespaces first, then every other plain object. */
  objects: LoadedDocument[];
  /** Applied last; the controller reconciles them. */
  graphs: LoadedDocument[];
  /** ResourceGraphDefinitions, applied after the objects; then their instances once served. */
  rgds: LoadedDocument[];
  instances: LoadedDocument[];
  /** Documents `up` does not apply, with the reason. */
  skipped: { doc: LoadedDocument; reason: string }[];
}

/** Sorts documents into what `up` applies and in which order. */
export function planDocuments(docs: readonly LoadedDocument[]): UpPlan {
  const plan: UpPlan = { crds: [], objects: [], graphs: [], rgds: [], instances: [], skipped: [] };
  const rgdKinds = new Set(
    docs.flatMap((d) => {
      const s = (
        d.object.spec as { schema?: { kind?: string; group?: string; apiVersion?: string } } | undefined
      )?.schema;
      return d.object.kind === 'ResourceGraphDefinition' && s?.kind && s.apiVersion
        ? [`${s.group ?? 'kro.run'}/${s.apiVersion}/${s.kind}`]
        : [];
    }),
  );
  for (const d of docs) {
    const { apiVersion, kind } = d.object;
    if (kind === 'CustomResourceDefinition') plan.crds.push(d);
    else if (apiVersion === GRAPH_API_VERSION && kind === 'Graph') plan.graphs.push(d);
    else if (apiVersion === GRAPH_API_VERSION && kind === 'ResourceGraphDefinition') plan.rgds.push(d);
    else if (rgdKinds.has(`${apiVersion}/${kind}`)) plan.instances.push(d);
    else plan.objects.push(d);
  }
  plan.objects.sort((a, b) => Number(b.object.kind === 'Namespace') - Number(a.object.kind === 'Namespace'));
  return plan;
}

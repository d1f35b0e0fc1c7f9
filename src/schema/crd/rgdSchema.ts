/**
 * Reads and checks the `spec.schema` section of an RGD (kind, apiVersion, group, scope, names,
 * printer columns, CRD metadata) into a normalized value. The SimpleSchema parts (`spec`, `types`,
 * `status`) are kept raw here and converted by the generator.
 */

import { isRecord } from '../../diag/record.ts';
import { SchemaCode } from '../codes.ts';
import { childPath, type DiagnosticSink } from '../report.ts';

export interface PrinterColumn {
  name: string;
  type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

export interface RgdSchemaSection {
  kind: string;
  apiVersion: string;
  group: string;
  scope: 'Namespaced' | 'Cluster';
  spec: unknown;
  types: unknown;
  status: unknown;
  additionalPrinterColumns?: PrinterColumn[];
  shortNames?: string[];
  categories?: string[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export const KIND_PATTERN = /^[A-Z][a-zA-Z0-9]{0,62}$/;
export const VERSION_PATTERN = /^v[0-9]+(alpha[0-9]+|beta[0-9]+)?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;
const COLUMN_TYPES = new Set(['integer', 'number', 'string', 'boolean', 'date']);
export const DEFAULT_GROUP = 'kro.run';

function stringList(value: unknown, path: string, what: string, sink: DiagnosticSink): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    sink.error(SchemaCode.InvalidNames, path, `${what} must be a list of strings`);
    return undefined;
  }
  const list = value as string[];
  const seen = new Set<string>();
  list.forEach((v, i) => {
    if (!DNS_LABEL.test(v)) {
      sink.error(
        SchemaCode.InvalidNames,
        `${path}[${i}]`,
        `${what} entry '${v}' is not a lower-case RFC 1035 label`,
      );
    }
    if (seen.has(v)) sink.error(SchemaCode.InvalidNames, `${path}[${i}]`, `duplicate ${what} entry '${v}'`);
    seen.add(v);
  });
  return list;
}

function stringMap(value: unknown, path: string, sink: DiagnosticSink): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value) || Object.values(value).some((v) => typeof v !== 'string')) {
    sink.error(SchemaCode.InvalidCrdMetadata, path, 'must be a map of strings');
    return undefined;
  }
  return value as Record<string, string>;
}

function printerColumns(value: unknown, path: string, sink: DiagnosticSink): PrinterColumn[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    sink.error(SchemaCode.InvalidPrinterColumn, path, 'additionalPrinterColumns must be a list');
    return undefined;
  }
  const out: PrinterColumn[] = [];
  value.forEach((c: unknown, i) => {
    const p = `${path}[${i}]`;
    if (!isRecord(c)) {
      sink.error(SchemaCode.InvalidPrinterColumn, p, 'a printer column must be a map');
      return;
    }
    const { name, type, jsonPath, description, format, priority } = c;
    let ok = true;
    if (typeof name !== 'string' || name === '') {
      sink.error(SchemaCode.InvalidPrinterColumn, childPath(p, 'name'), 'printer column name is required');
      ok = false;
    }
    if (typeof type !== 'string' || !COLUMN_TYPES.has(type)) {
      sink.error(
        SchemaCode.InvalidPrinterColumn,
        childPath(p, 'type'),
        `printer column type must be one of integer, number, string, boolean, date (got ${JSON.stringify(type)})`,
      );
      ok = false;
    }
    if (typeof jsonPath !== 'string' || !jsonPath.startsWith('.')) {
      sink.error(
        SchemaCode.InvalidPrinterColumn,
        childPath(p, 'jsonPath'),
        'printer column jsonPath is required and must start with "."',
      );
      ok = false;
    }
    if (
      priority !== undefined &&
      (typeof priority !== 'number' || !Number.isInteger(priority) || priority < 0)
    ) {
      sink.error(
        SchemaCode.InvalidPrinterColumn,
        childPath(p, 'priority'),
        'priority must be a non-negative integer',
      );
      ok = false;
    }
    if (!ok) return;
    const col: PrinterColumn = {
      name: name as string,
      type: type as PrinterColumn['type'],
      jsonPath: jsonPath as string,
    };
    if (typeof description === 'string') col.description = description;
    if (typeof format === 'string') col.format = format;
    if (typeof priority === 'number' && priority !== 0) col.priority = priority; // 0 is omitted, as kro writes it
    out.push(col);
  });
  return out;
}

/** Returns undefined when the section is unusable (the reasons are in the sink). */
export function readRgdSchemaSection(
  section: unknown,
  path: string,
  sink: DiagnosticSink,
): RgdSchemaSection | undefined {
  if (!isRecord(section)) {
    sink.error(SchemaCode.MissingSchema, path, 'spec.schema is required and must be a map');
    return undefined;
  }
  const { kind, apiVersion, group, scope } = section;
  let usable = true;
  if (typeof kind !== 'string' || !KIND_PATTERN.test(kind)) {
    sink.error(
      SchemaCode.InvalidKind,
      childPath(path, 'kind'),
      kind === undefined
        ? 'spec.schema.kind is required'
        : `'${String(kind)}' is not a valid KRO kind name: must be UpperCamelCase, ^[A-Z][a-zA-Z0-9]{0,62}$`,
    );
    usable = false;
  }
  if (typeof apiVersion !== 'string' || !VERSION_PATTERN.test(apiVersion)) {
    sink.error(
      SchemaCode.InvalidApiVersion,
      childPath(path, 'apiVersion'),
      apiVersion === undefined
        ? 'spec.schema.apiVersion is required'
        : `'${String(apiVersion)}' is not a valid version: must match ^v[0-9]+(alpha[0-9]+|beta[0-9]+)?$`,
    );
    usable = false;
  }
  let g = DEFAULT_GROUP;
  if (group !== undefined && group !== null && group !== '') {
    if (typeof group !== 'string' || group.length > 253 || !DNS_SUBDOMAIN.test(group)) {
      sink.error(
        SchemaCode.InvalidGroup,
        childPath(path, 'group'),
        `'${String(group)}' is not a valid API group`,
      );
      usable = false;
    } else g = group;
  }
  let s: RgdSchemaSection['scope'] = 'Namespaced';
  if (scope !== undefined && scope !== null) {
    if (scope !== 'Namespaced' && scope !== 'Cluster') {
      sink.error(
        SchemaCode.InvalidScope,
        childPath(path, 'scope'),
        `scope must be Namespaced or Cluster (got ${JSON.stringify(scope)})`,
      );
      usable = false;
    } else s = scope;
  }
  const categories = stringList(section.categories, childPath(path, 'categories'), 'categories', sink);
  if (categories && categories.length > 32) {
    sink.error(SchemaCode.InvalidNames, childPath(path, 'categories'), 'at most 32 categories are allowed');
  }
  const meta = isRecord(section.metadata) ? section.metadata : undefined;
  if (section.metadata !== undefined && meta === undefined) {
    sink.error(SchemaCode.InvalidCrdMetadata, childPath(path, 'metadata'), 'metadata must be a map');
  }
  const out: RgdSchemaSection = {
    kind: kind as string,
    apiVersion: apiVersion as string,
    group: g,
    scope: s,
    spec: section.spec,
    types: section.types,
    status: section.status,
  };
  const cols = printerColumns(
    section.additionalPrinterColumns,
    childPath(path, 'additionalPrinterColumns'),
    sink,
  );
  if (cols) out.additionalPrinterColumns = cols;
  const shortNames = stringList(section.shortNames, childPath(path, 'shortNames'), 'shortNames', sink);
  if (shortNames) out.shortNames = shortNames;
  if (categories) out.categories = categories;
  const metaPath = childPath(path, 'metadata');
  const labels = stringMap(meta?.labels, childPath(metaPath, 'labels'), sink);
  if (labels) out.labels = labels;
  const annotations = stringMap(meta?.annotations, childPath(metaPath, 'annotations'), sink);
  if (annotations) out.annotations = annotations;
  return usable ? out : undefined;
}

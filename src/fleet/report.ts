/**
 * The answer of `kgraph fleet diff` (design/rgd.md §19.9): per instance what would change, be added, be
 * pruned or wait, the schema verdict, and the exit code as `kubectl diff` gives it (0 no difference,
 * 1 differences, >1 an error — set by the command). Text for people, JSON (`-o json`) for CI. Pure.
 */
import type { InstanceDiff, ObjectDiff } from './instanceDiff.ts';
import type { SchemaVerdict } from './schemaVerdict.ts';

/** `--server-side`: what the API server answered to a dry-run apply of one object. */
export interface ServerSideAnswer {
  /** `admitted` (changes something), `no-op` (the server would store what it holds), `refused`. */
  outcome: 'admitted' | 'no-op' | 'refused';
  /** Who applied: the instance's ServiceAccount (`system:serviceaccount:ns:name`) or the caller. */
  as?: string;
  message?: string;
}

export interface FleetDiffReport {
  rgd: string;
  /** What is compared: `revision 3`, `the cluster's spec (generation 4)`, `file new.yaml`. */
  from: string;
  to: string;
  schema: SchemaVerdict;
  instances: (InstanceDiff & { serverSide?: Record<string, ServerSideAnswer> })[];
  summary: FleetSummary;
}

export interface FleetSummary {
  instances: number;
  /** Instances with at least one add, change or prune. */
  affected: number;
  add: number;
  change: number;
  prune: number;
  wait: number;
  errors: number;
  invalid: number;
  skipped: number;
}

/** The key `--server-side` answers are stored under: `Kind/namespace/name`. */
export function objectKey(o: Pick<ObjectDiff, 'kind' | 'namespace' | 'name'>): string {
  return `${o.kind}/${o.namespace ?? ''}/${o.name}`;
}

export function summarize(instances: readonly InstanceDiff[]): FleetSummary {
  const s: FleetSummary = {
    instances: instances.length,
    affected: 0,
    add: 0,
    change: 0,
    prune: 0,
    wait: 0,
    errors: 0,
    invalid: 0,
    skipped: 0,
  };
  for (const i of instances) {
    if (i.skipped) s.skipped += 1;
    if (i.objects.length > 0) s.affected += 1;
    for (const o of i.objects) s[o.action] += 1;
    s.wait += i.waits.length;
    if (i.errors.length > 0) s.errors += 1;
    if ((i.invalid?.length ?? 0) > 0) s.invalid += 1;
  }
  return s;
}

/** 1 when anything would differ (an object, a schema change, an instance that fails), else 0. */
export function exitCodeOf(report: FleetDiffReport): 0 | 1 {
  const s = report.summary;
  const schema = report.schema.breaking.length + report.schema.nonBreaking.length;
  return s.add + s.change + s.prune + s.errors + s.invalid + schema > 0 || report.schema.verdict === 'refused'
    ? 1
    : 0;
}

/** The JSON of `-o json`: the report without the rendered objects unless asked (they are large). */
export function reportJson(report: FleetDiffReport, withObjects = false): unknown {
  if (withObjects) return report;
  return {
    ...report,
    instances: report.instances.map((i) => ({
      ...i,
      objects: i.objects.map(({ desired: _d, ...o }) => o),
    })),
  };
}

/** The text of the default output. */
export function formatReport(report: FleetDiffReport): string {
  const lines: string[] = [];
  const s = report.summary;
  lines.push(`ResourceGraphDefinition ${report.rgd}: ${report.from} → ${report.to}`);
  lines.push(`schema: ${schemaLine(report.schema)}`);
  for (const c of report.schema.breaking) lines.push(`  ! ${c.path}: ${c.message}`);
  const descriptions = report.schema.nonBreaking.filter((c) => c.kind === 'DescriptionChanged').length;
  for (const c of report.schema.nonBreaking) {
    if (c.kind !== 'DescriptionChanged') lines.push(`  ~ ${c.path}: ${c.message}`);
  }
  if (descriptions > 0) lines.push(`  ~ ${descriptions} description${descriptions === 1 ? '' : 's'} changed`);
  lines.push(
    `instances: ${s.instances}, affected ${s.affected}: ${s.change} to change, ${s.add} to add, ${s.prune} to prune, ${s.wait} waiting` +
      (s.errors > 0 ? `, ${s.errors} failing` : '') +
      (s.invalid > 0 ? `, ${s.invalid} invalid under the new schema` : '') +
      (s.skipped > 0 ? `, ${s.skipped} skipped` : ''),
  );
  for (const i of report.instances) {
    const quiet =
      i.objects.length === 0 && i.waits.length === 0 && i.errors.length === 0 && !i.invalid?.length;
    if (quiet && !i.skipped) continue;
    lines.push('');
    lines.push(
      `${i.namespace ? `${i.namespace}/` : ''}${i.name}${i.skipped ? `  skipped: ${i.skipped}` : ''}`,
    );
    for (const p of i.invalid ?? []) lines.push(`  invalid  ${p}`);
    for (const e of i.errors) lines.push(`  error    ${e}`);
    for (const o of i.objects) {
      const ss = i.serverSide?.[objectKey(o)];
      const server = ss
        ? `  [server: ${ss.outcome}${ss.as ? ` as ${ss.as}` : ''}${ss.message ? `: ${ss.message}` : ''}]`
        : '';
      lines.push(
        `  ${o.action.padEnd(7)}  ${o.kind}/${o.name}${o.namespace && o.namespace !== i.namespace ? ` -n ${o.namespace}` : ''}  (${o.node})${o.drift ? '  drift: the current spec writes it too' : ''}${server}`,
      );
      for (const f of o.fields ?? []) {
        lines.push(
          f.op === 'remove'
            ? `      - ${f.path}: ${show(f.from)}`
            : `      ~ ${f.path}: ${f.from === undefined ? '(none)' : show(f.from)} → ${show(f.to)}`,
        );
      }
    }
    for (const w of i.waits) lines.push(`  wait     ${w.node}: ${w.reason}`);
  }
  return `${lines.join('\n')}\n`;
}

function schemaLine(v: SchemaVerdict): string {
  const n = v.breaking.length + v.nonBreaking.length;
  switch (v.verdict) {
    case 'compatible':
      return n === 0 ? 'unchanged' : `compatible (${n} change${n === 1 ? '' : 's'})`;
    case 'breaking-allowed':
      return `BREAKING, allowed by kro.run/allow-breaking-changes (${v.breaking.length} breaking)`;
    case 'refused':
      return `BREAKING: the controller would refuse the CRD update and keep serving the old one (${v.breaking.length} breaking; kro.run/allow-breaking-changes: "true" lets it through)`;
  }
}

const MAX_VALUE = 80;

function show(v: unknown): string {
  const text = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? Number(x) : x)) ?? 'null';
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

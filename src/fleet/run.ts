/**
 * `kgraph fleet diff` end to end (design/rgd.md §19.9): the two specs, one snapshot of the fleet, the
 * pure diff, and with `serverSide` a dry-run apply per object to add or change. The command is a thin
 * shell over this (tests and the benchmark call it in-process).
 */
import { KgraphError } from '../diag/diagnostic.ts';
import type { RestClient } from '../kube/index.ts';
import { identityKey, identityOf, type KubeObject } from '../runtime/observed.ts';
import { readSnapshot, type Scope, type Sides, sidesFromFile, sidesFromRevisions } from './cluster.ts';
import { FleetCode } from './codes.ts';
import { diffFleet } from './fleetDiff.ts';
import { exitCodeOf, type FleetDiffReport } from './report.ts';
import { dryRunApplies } from './serverSide.ts';

export type FleetDiffSource =
  | { file: string; inline?: ReadonlyMap<string, string> }
  | { rgd: string; from: number; to?: number };

export interface FleetDiffOptions extends Scope {
  serverSide?: boolean;
}

export interface FleetDiffRun {
  report: FleetDiffReport;
  exitCode: 0 | 1;
  /** Milliseconds spent reading the cluster, diffing, and dry-running (benchmarks). */
  timings: { read: number; diff: number; serverSide: number };
}

export async function runFleetDiff(
  client: RestClient,
  source: FleetDiffSource,
  opts: FleetDiffOptions = {},
): Promise<FleetDiffRun> {
  const t0 = performance.now();
  const sides: Sides =
    'file' in source
      ? await sidesFromFile(client, source.file, source.inline)
      : await sidesFromRevisions(client, source.rgd, source.from, source.to);
  refuseKindChange(sides);
  const snapshot = await readSnapshot(client, sides, opts);
  const t1 = performance.now();
  const report = diffFleet(sides.name, sides.from, sides.to, snapshot);
  const t2 = performance.now();
  if (opts.serverSide) {
    const byKey = new Map<string, KubeObject>();
    for (const o of snapshot.objects) {
      const id = identityOf(o);
      if (id) byKey.set(identityKey(id), o);
    }
    await dryRunApplies(client, sides.to.graph, report.instances, (o) => byKey.get(identityKey(o)));
  }
  const t3 = performance.now();
  return {
    report,
    exitCode: exitCodeOf(report),
    timings: { read: t1 - t0, diff: t2 - t1, serverSide: t3 - t2 },
  };
}

/** The instance API is immutable (design/rgd.md §19.1): an edit of it serves another kind, no instance carries over. */
function refuseKindChange(sides: Sides): void {
  const api = (s: Sides['from']) => {
    const r = s.graph.rgd;
    return r ? `${r.group}/${r.apiVersion} ${r.kind} (${r.scope})` : '';
  };
  const before = api(sides.from);
  const after = api(sides.to);
  if (before !== after) {
    throw new KgraphError(
      FleetCode.KindChanged,
      `${sides.to.label} serves ${after}, ${sides.from.label} serves ${before}: the instance API of an RGD is immutable, so no instance carries over`,
    );
  }
}

/**
 * kro's GraphRevision metrics of the RGD controller (design/rgd.md §19.5), under kro's names so dashboards
 * built for kro read kgraph: revisions issued by reason, waits by reason, resolutions by result, and the
 * retention's deletions and failures.
 */
import { Counter, type Registry } from 'prom-client';

export interface RevisionMetrics {
  issued: Counter<'reason'>;
  waits: Counter<'reason'>;
  resolutions: Counter<'result'>;
  gcDeleted: Counter;
  gcErrors: Counter;
}

export function revisionMetrics(registry: Registry): RevisionMetrics {
  const registers = [registry];
  return {
    issued: new Counter({
      name: 'rgd_graph_revision_issue_total',
      help: 'GraphRevisions issued, by reason (no_revision, spec_changed).',
      labelNames: ['reason'],
      registers,
    }),
    waits: new Counter({
      name: 'rgd_graph_revision_wait_total',
      help: 'RGD passes that waited before issuing, by reason (settling).',
      labelNames: ['reason'],
      registers,
    }),
    resolutions: new Counter({
      name: 'rgd_graph_revision_resolution_total',
      help: 'GraphRevision resolutions of RGD passes, by result (serve, issue, wait, failed).',
      labelNames: ['result'],
      registers,
    }),
    gcDeleted: new Counter({
      name: 'rgd_graph_revision_gc_deleted_total',
      help: 'GraphRevisions deleted by retention.',
      registers,
    }),
    gcErrors: new Counter({
      name: 'rgd_graph_revision_gc_errors_total',
      help: 'GraphRevisions retention failed to delete.',
      registers,
    }),
  };
}

/**
 * The events one instance pass is worth to a user reading `kubectl events` (core/passReport.ts says what
 * the pass did): changes applied and pruned (counted), drift repaired, waiting on a node and why, a read
 * or write refused (with the grant hint), a hard failure. A pass that changed nothing and waits on
 * nothing new says nothing; an unchanged wait repeats as one series (recorder.ts).
 */
import type { ReconcileOutcome } from '../outcome.ts';
import type { PassReport } from '../passReport.ts';
import type { EventRecord, EventRegarding } from './recorder.ts';

/** Names listed in a note at most; the rest are counted. */
const LISTED = 5;

export function passEvents(regarding: EventRegarding, outcome: ReconcileOutcome): EventRecord[] {
  const r = outcome.report;
  if (!r) return [];
  const ev = (type: EventRecord['type'], reason: string, action: string, note: string): EventRecord => ({
    regarding,
    type,
    reason,
    action,
    note,
  });
  const out: EventRecord[] = [];
  if (r.refused) {
    out.push(
      r.refused.verb === 'read'
        ? ev('Warning', 'ReadForbidden', 'Read', r.refused.message)
        : ev('Warning', 'WriteForbidden', 'Apply', r.refused.message),
    );
  } else if (r.error) {
    out.push(ev('Warning', 'ReconcileFailed', 'Reconcile', r.error));
  }
  const changed = r.created.length + r.updated.length + r.pruned.length;
  if (changed > 0) {
    if (isDriftRepair(r)) {
      out.push(
        ev(
          'Normal',
          'DriftRepaired',
          'Apply',
          `re-applied ${r.updated.length} object(s) changed outside kgraph: ${listed(r.updated)}`,
        ),
      );
    } else {
      out.push(ev('Normal', 'ResourcesApplied', 'Reconcile', changesNote(r)));
    }
  }
  if (outcome.kind === 'waiting' && r.waiting && !r.refused) {
    const w = r.waiting;
    out.push(ev('Normal', 'Waiting', 'Wait', `waiting on node ${w.node} (${w.state}): ${w.reason}`));
  }
  return out;
}

/**
 * kro's condition-transition events (its `InstanceConditionEvents` gate): one per condition whose status
 * changed, reason the condition type, note `<old> -> <new>: <reason>` (`none` when it is new), Normal
 * when it became True, Warning otherwise.
 */
export function conditionEvents(regarding: EventRegarding, report: PassReport): EventRecord[] {
  const before = new Map(report.conditionsBefore.map((c) => [c.type, c]));
  const out: EventRecord[] = [];
  for (const c of report.conditionsAfter) {
    const old = before.get(c.type);
    if (old && old.status === c.status) continue;
    out.push({
      regarding,
      type: c.status === 'True' ? 'Normal' : 'Warning',
      reason: c.type,
      action: 'Reconcile',
      note: `${old ? old.status : 'none'} -> ${c.status}: ${c.reason}`,
    });
  }
  return out;
}

/**
 * Drift: the pass changed existing objects while the instance's spec was already reconciled (its
 * generation is the one its conditions last observed) — someone else changed what the instance owns.
 */
function isDriftRepair(r: PassReport): boolean {
  return (
    r.updated.length > 0 &&
    r.created.length === 0 &&
    r.pruned.length === 0 &&
    r.previousGeneration > 0 &&
    r.generation === r.previousGeneration
  );
}

function changesNote(r: PassReport): string {
  const parts: string[] = [];
  if (r.created.length > 0) parts.push(`created ${r.created.length} (${listed(r.created)})`);
  if (r.updated.length > 0) parts.push(`updated ${r.updated.length} (${listed(r.updated)})`);
  if (r.pruned.length > 0) parts.push(`pruned ${r.pruned.length} (${listed(r.pruned)})`);
  return `applied ${r.created.length + r.updated.length}, pruned ${r.pruned.length}: ${parts.join('; ')}`;
}

/** `v1/ConfigMap/ns/a` → `ConfigMap a`, the first few, then how many more. */
function listed(keys: string[]): string {
  const short = keys.slice(0, LISTED).map((k) => {
    const parts = k.split('/');
    const name = parts.at(-1) ?? k;
    const kind = parts.at(-3) ?? '';
    return `${kind} ${name}`;
  });
  return keys.length > LISTED ? `${short.join(', ')} and ${keys.length - LISTED} more` : short.join(', ');
}

/**
 * The events an RGD itself raises (core/observability.ts): a GraphRevision issued for a new spec, and a
 * CRD update blocked as a breaking change (design/rgd.md §19.4, §19.5). A blocked change is retried on
 * every reconcile; the recorder folds those repeats into one series.
 */
import type { KubeObject } from '../../kube/index.ts';
import type { EventRecord, EventRegarding } from '../core/events/recorder.ts';
import { RGD_API_VERSION } from './names.ts';

function regardingRgd(rgd: KubeObject): EventRegarding {
  return {
    apiVersion: RGD_API_VERSION,
    kind: 'ResourceGraphDefinition',
    name: rgd.metadata.name ?? '',
    uid: rgd.metadata.uid,
    resourceVersion: rgd.metadata.resourceVersion,
  };
}

export function revisionIssuedEvent(rgd: KubeObject, revision: number, graphRevision: string): EventRecord {
  return {
    regarding: regardingRgd(rgd),
    type: 'Normal',
    reason: 'RevisionIssued',
    action: 'IssueRevision',
    note: `GraphRevision ${graphRevision} (revision ${revision}) issued for generation ${rgd.metadata.generation ?? 0}`,
  };
}

export function breakingChangeEvent(rgd: KubeObject, message: string): EventRecord {
  return {
    regarding: regardingRgd(rgd),
    type: 'Warning',
    reason: 'BreakingChangeBlocked',
    action: 'UpdateCRD',
    note: message,
  };
}

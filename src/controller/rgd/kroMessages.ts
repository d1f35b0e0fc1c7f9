/**
 * kro's condition messages, word for word, where kro has one (its instance and RGD controllers): users
 * assert and grep them, so a drop-in must write the same text (design/rgd.md §20.2). Where kro formats an
 * error after a prefix, the prefix is kro's and the detail ours.
 */
export const KRO_MESSAGES = {
  /** InstanceManaged=True, reason Managed. */
  managed: 'instance is properly managed with finalizers and labels',
  /** GraphResolved=True, reason Resolved. */
  resolved: 'runtime graph created and all resources resolved',
  /** ResourcesReady=True, reason AllResourcesReady. */
  allReady: 'all resources are created and ready',
  /** ResourcesReady=False, reason NotReady: an apply or prune failed. */
  reconcileFailed: 'resource reconciliation failed: ',
  /** ResourcesReady=False, reason NotReady: resources exist but are not all ready. */
  awaitingReadiness: 'awaiting resource readiness: ',
  /** After `awaitingReadiness` when a resource waits for data nobody has written yet (kro's requeue error). */
  unresolved: 'waiting for unresolved resource: ',
  /** ResourcesReady=Unknown, reason UnderDeletion. */
  deleting: 'deleting resources',
  /** ResourcesReady=Unknown, reason UnderDeletion: a delete failed. */
  deletionBlocked: 'deletion blocked: ',
  /** ResourcesReady=False and Ready=False, reason ReconciliationSuspended. */
  suspended: 'reconciliation suspended via kro.run/reconcile annotation',
  /** The root Ready=True (reason Ready): kro writes no message. */
  ready: '',
  /** RGD GraphAccepted=True, reason Valid. */
  graphAccepted: 'resource graph and schema are valid',
  /** RGD KindReady=True, reason Ready. */
  kindReady: (kind: string) => `kind ${kind} has been accepted and ready`,
  /** RGD ControllerReady=True, reason Running. */
  controllerRunning: 'controller is running',
  /** RGD GraphRevisionsResolved=True, reason Resolved. */
  revisionResolved: (revision: number) => `revision ${revision} compiled and active`,
  /** RGD GraphRevisionsResolved=Unknown, reason WaitingForGraphRevisionSettlement. */
  revisionsSettling: 'waiting for terminating graph revisions to settle',
} as const;

/** Codes of `kgraph fleet diff`'s refusals (exit 2), in the controller/apply range (DEVELOPERS.md). */
export const FleetCode = {
  /** No RGD of that name in the cluster: nothing to compare with. */
  NoRgd: 'KG6120',
  /** A revision asked for (`--from`, `--to`) is not among the RGD's GraphRevisions. */
  NoRevision: 'KG6121',
  /** The new spec does not compile: the controller would not accept it (GraphAccepted=False). */
  NotAccepted: 'KG6122',
  /** The command line or the file does not say one RGD and one pair of specs. */
  BadInput: 'KG6123',
  /** The edit changes the instance kind, group or version: immutable, no instance carries over. */
  KindChanged: 'KG6124',
} as const;

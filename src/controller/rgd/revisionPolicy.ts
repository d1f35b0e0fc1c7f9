/**
 * Which GraphRevision an instance is reconciled at (design/rgd.md §19.7): kgraph's annotations under its
 * own domain, never fields in kro's CRDs, so kro manifests stay valid and an instance without them behaves
 * exactly as under kro (the latest revision). Pure: no kube imports.
 *
 *   `kgraph.dev/revision-policy: Manual`   pinned by its owner: a rollout never moves it; it stays at
 *                                          `kgraph.dev/revision`, or (none) at the revision it is reconciled at.
 *   `kgraph.dev/revision: "N"`             reconcile at revision N (written by a person or by a rollout).
 *   neither                                 the latest revision, or what the RGD's rollout holds it at.
 *
 * The revision reconciled at is recorded as the label `kgraph.dev/revision` (`kubectl get KIND -L kgraph.dev/revision`).
 */

export const ANNOTATION_REVISION_POLICY = 'kgraph.dev/revision-policy';
export const ANNOTATION_REVISION = 'kgraph.dev/revision';
export const LABEL_REVISION = 'kgraph.dev/revision';
/**
 * Sharded replicas: the revision of the last pass whose status was written, on the instance, so the
 * coordinator's rollout judges the health of another replica's instance only from a status that pass
 * wrote (design/sharding.md §6). Written once per revision change, never in steady state.
 */
export const ANNOTATION_OBSERVED_REVISION = 'kgraph.dev/observed-revision';

export type RevisionPolicy = 'Automatic' | 'Manual';

export type RevisionResolutionCode =
  | 'RevisionAnnotationInvalid'
  | 'RevisionNotFound'
  | 'RevisionInvalid'
  | 'RevisionsUnavailable';

/** An instance cannot be reconciled at the revision it asks for; it stops (no fallback to another revision). */
export class RevisionResolutionError extends Error {
  readonly code: RevisionResolutionCode;
  constructor(code: RevisionResolutionCode, message: string) {
    super(message);
    this.name = 'RevisionResolutionError';
    this.code = code;
  }
}

export interface InstancePin {
  policy: RevisionPolicy;
  /** The revision the annotation asks for. */
  revision?: number;
}

type Meta = { annotations?: Record<string, string>; labels?: Record<string, string> };

/** Reads the two annotations; an unreadable value is an error (never silently ignored). */
export function readPin(meta: Meta): InstancePin | RevisionResolutionError {
  const a = meta.annotations ?? {};
  const rawPolicy = a[ANNOTATION_REVISION_POLICY];
  let policy: RevisionPolicy = 'Automatic';
  if (rawPolicy !== undefined) {
    if (rawPolicy !== 'Automatic' && rawPolicy !== 'Manual')
      return new RevisionResolutionError(
        'RevisionAnnotationInvalid',
        `${ANNOTATION_REVISION_POLICY} must be Automatic or Manual, not ${JSON.stringify(rawPolicy)}`,
      );
    policy = rawPolicy;
  }
  const raw = a[ANNOTATION_REVISION];
  if (raw === undefined) return { policy };
  const n = parseRevision(raw);
  if (n === undefined)
    return new RevisionResolutionError(
      'RevisionAnnotationInvalid',
      `${ANNOTATION_REVISION} must be a revision number (1, 2, …), not ${JSON.stringify(raw)}`,
    );
  return { policy, revision: n };
}

/** A positive revision number written as decimal digits; undefined otherwise. */
export function parseRevision(raw: string | undefined): number | undefined {
  if (raw === undefined || !/^[1-9][0-9]{0,8}$/.test(raw.trim())) return undefined;
  return Number(raw.trim());
}

/** The revision an instance is reconciled at now (its label), if any. */
export function reconciledRevision(meta: Meta): number | undefined {
  return parseRevision(meta.labels?.[LABEL_REVISION]);
}

export interface RevisionChoiceInput {
  meta: Meta;
  /** The RGD's latest revision (undefined: revisions are not issued, the compiled spec is used as is). */
  latest: number | undefined;
  /** Where the RGD's rollout holds an instance that names no revision (undefined: no rollout, the latest). */
  rolloutDefault?: number;
}

/** `latest`: the RGD's current compiled graph; a number: that revision's snapshot. */
export type RevisionChoice = { kind: 'latest' } | { kind: 'revision'; revision: number };

/** Decides the revision of one pass (design/rgd.md §19.7). */
export function chooseRevision(input: RevisionChoiceInput): RevisionChoice | RevisionResolutionError {
  const pin = readPin(input.meta);
  if (pin instanceof RevisionResolutionError) return pin;
  let wanted = pin.revision;
  if (wanted === undefined && pin.policy === 'Manual') wanted = reconciledRevision(input.meta);
  if (wanted === undefined) wanted = input.rolloutDefault;
  if (wanted === undefined || wanted === input.latest) return { kind: 'latest' };
  // Also while the latest number is unknown (revisions settling): the revision asked for is looked up as is.
  return { kind: 'revision', revision: wanted };
}

/** True when a rollout may move the instance: its owner did not pin it. */
export function rolloutMayMove(meta: Meta): boolean {
  const pin = readPin(meta);
  return !(pin instanceof RevisionResolutionError) && pin.policy !== 'Manual';
}

/** Every revision these instances are reconciled at or ask for (retention keeps them). */
export function revisionsNamed(metas: Iterable<Meta>): Set<number> {
  const out = new Set<number>();
  for (const m of metas) {
    const at = reconciledRevision(m);
    if (at !== undefined) out.add(at);
    const asked = parseRevision(m.annotations?.[ANNOTATION_REVISION]);
    if (asked !== undefined) out.add(asked);
  }
  return out;
}

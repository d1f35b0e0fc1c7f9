/**
 * Access reviews: "may I do X?" (SelfSubjectAccessReview), "may user U do X?" (SubjectAccessReview)
 * and "who am I?" (SelfSubjectReview). Planes and `kgraph` commands check permissions up front to
 * report a missing RBAC rule clearly instead of failing half-way through; the Graph controller asks
 * whether a Graph's ServiceAccount may read what the Graph reads (controller/core/readAccess.ts).
 * All are POSTs of a review object that is never stored (counted as `review`, not as a write).
 */

import { isRecord } from '../diag/record.ts';
import type { CallOptions, RestClient } from './rest.ts';

export interface ResourceAttributes {
  verb: string;
  /** '' for the core group. */
  group?: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

export interface AccessReviewResult {
  allowed: boolean;
  denied: boolean;
  reason: string;
  evaluationError: string;
}

/** Who is asked about: a user name and the groups the authenticator would give it. */
export interface ReviewSubject {
  user: string;
  groups: readonly string[];
}

function resourceAttributesOf(attrs: ResourceAttributes): Record<string, string> {
  const resourceAttributes: Record<string, string> = { verb: attrs.verb, resource: attrs.resource };
  if (attrs.group) resourceAttributes.group = attrs.group;
  if (attrs.subresource) resourceAttributes.subresource = attrs.subresource;
  if (attrs.namespace) resourceAttributes.namespace = attrs.namespace;
  if (attrs.name) resourceAttributes.name = attrs.name;
  return resourceAttributes;
}

export async function selfSubjectAccessReview(
  client: RestClient,
  attrs: ResourceAttributes,
  opts: CallOptions = {},
): Promise<AccessReviewResult> {
  const body = await client.request({
    ...opts,
    method: 'POST',
    path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: resourceAttributesOf(attrs) },
    },
    verb: 'review',
  });
  return reviewResult(body);
}

/**
 * May `subject` do `attrs`? Asked by the caller's own identity (it needs `create` on
 * `subjectaccessreviews`); answered by every authorizer of the API server (RBAC, webhooks, …).
 * Unlike impersonation, nothing adds the groups of a user here: pass them in `subject.groups`.
 */
export async function subjectAccessReview(
  client: RestClient,
  subject: ReviewSubject,
  attrs: ResourceAttributes,
  opts: CallOptions = {},
): Promise<AccessReviewResult> {
  const body = await client.request({
    ...opts,
    method: 'POST',
    path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: subject.user,
        groups: [...subject.groups],
        resourceAttributes: resourceAttributesOf(attrs),
      },
    },
    verb: 'review',
  });
  return reviewResult(body);
}

function reviewResult(body: unknown): AccessReviewResult {
  const status = isRecord(body) && isRecord(body.status) ? body.status : {};
  return {
    allowed: status.allowed === true,
    denied: status.denied === true,
    reason: typeof status.reason === 'string' ? status.reason : '',
    evaluationError: typeof status.evaluationError === 'string' ? status.evaluationError : '',
  };
}

export interface UserInfo {
  username: string;
  uid: string;
  groups: string[];
  extra: Record<string, string[]>;
}

export async function selfSubjectReview(client: RestClient, opts: CallOptions = {}): Promise<UserInfo> {
  const body = await client.request({
    ...opts,
    method: 'POST',
    path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    verb: 'review',
  });
  const ui =
    isRecord(body) && isRecord(body.status) && isRecord(body.status.userInfo) ? body.status.userInfo : {};
  const extra: Record<string, string[]> = {};
  if (isRecord(ui.extra)) {
    for (const [k, v] of Object.entries(ui.extra)) {
      if (Array.isArray(v)) extra[k] = v.filter((x): x is string => typeof x === 'string');
    }
  }
  return {
    username: typeof ui.username === 'string' ? ui.username : '',
    uid: typeof ui.uid === 'string' ? ui.uid : '',
    groups: Array.isArray(ui.groups) ? ui.groups.filter((x): x is string => typeof x === 'string') : [],
    extra,
  };
}

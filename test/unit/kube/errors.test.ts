import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ApiError,
  apiErrorFromResponse,
  apiErrorFromStatus,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isNotFound,
  isTransient,
  parseConflicts,
} from '../../../src/kube/errors.ts';

// The shape kube-apiserver returns for a server-side-apply conflict.
const ssaConflict = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message:
    'Apply failed with 2 conflicts: conflict with "owner-a": .data.key\nconflict with "kubectl-edit" using v1: .data.other',
  reason: 'Conflict',
  details: {
    causes: [
      { reason: 'FieldManagerConflict', message: 'conflict with "owner-a"', field: '.data.key' },
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "kubectl-edit" using v1',
        field: '.data.other',
      },
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "ctl" with subresource "status" using apps/v1 at 2024-01-02T03:04:05Z',
        field: '.status.x',
      },
    ],
  },
  code: 409,
};

describe('ApiError', () => {
  it('is built from a Status body', () => {
    const e = apiErrorFromResponse(
      404,
      {
        kind: 'Status',
        status: 'Failure',
        message: 'configmaps "x" not found',
        reason: 'NotFound',
        details: { name: 'x', kind: 'configmaps' },
        code: 404,
      },
      'GET /api/v1/namespaces/a/configmaps/x',
    );
    assert.ok(e instanceof ApiError);
    assert.equal(e.code, 404);
    assert.equal(e.reason, 'NotFound');
    assert.equal(e.message, 'configmaps "x" not found');
    assert.deepEqual(e.details, { name: 'x', kind: 'configmaps' });
    assert.equal(e.request, 'GET /api/v1/namespaces/a/configmaps/x');
    assert.ok(isNotFound(e));
    assert.ok(!isConflict(e));
    assert.equal(e.conflicts.length, 0);
    assert.equal(e.isApplyConflict, false);
  });

  it('parses server-side-apply conflicts into managers and fields', () => {
    const e = apiErrorFromResponse(409, ssaConflict);
    assert.equal(e.isApplyConflict, true);
    assert.deepEqual(e.conflictingManagers, ['owner-a', 'kubectl-edit', 'ctl']);
    assert.deepEqual(
      e.conflicts.map((c) => [c.manager, c.field, c.apiVersion, c.subresource]),
      [
        ['owner-a', '.data.key', undefined, undefined],
        ['kubectl-edit', '.data.other', 'v1', undefined],
        ['ctl', '.status.x', 'apps/v1', 'status'],
      ],
    );
    assert.ok(isConflict(e));
    assert.ok(!isAlreadyExists(e));
  });

  it('unescapes Go-quoted manager names', () => {
    const cs = parseConflicts({
      causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "we\\"ird"', field: '.a' }],
    });
    assert.equal(cs[0]?.manager, 'we"ird');
  });

  it('ignores causes that are not field-manager conflicts', () => {
    const cs = parseConflicts({ causes: [{ reason: 'FieldValueInvalid', message: 'bad', field: 'spec.x' }] });
    assert.deepEqual(cs, []);
  });

  it('falls back to the HTTP code when the body is not a Status', () => {
    const e = apiErrorFromResponse(503, 'upstream connect error');
    assert.equal(e.code, 503);
    assert.equal(e.reason, 'ServiceUnavailable');
    assert.equal(e.message, 'upstream connect error');
    assert.ok(isTransient(e));
    const f = apiErrorFromResponse(403, '');
    assert.equal(f.message, 'HTTP 403');
    assert.ok(isForbidden(f));
    assert.ok(!isTransient(f));
  });

  it('recognises AlreadyExists and Gone', () => {
    assert.ok(
      isAlreadyExists(apiErrorFromResponse(409, { kind: 'Status', reason: 'AlreadyExists', code: 409 })),
    );
    // A watch ERROR event for a too-old resourceVersion.
    const gone = apiErrorFromStatus({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message: 'too old resource version: 1 (200)',
      reason: 'Expired',
      code: 410,
    });
    assert.equal(gone.code, 410);
    assert.ok(isGone(gone));
    assert.ok(isTransient(new ApiError({ code: 0, reason: 'NetworkError', message: 'ECONNREFUSED' })));
  });
});

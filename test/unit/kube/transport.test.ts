import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../src/kube/errors.ts';
import { parseWarnings, withRetryAfter } from '../../../src/kube/transport.ts';

describe('transport helpers', () => {
  it('parses Warning headers', () => {
    assert.deepEqual(
      parseWarnings([
        'Content-Type',
        'application/json',
        'Warning',
        '299 - "unknown field \\"spec.foo\\""',
        'warning',
        '299 - "a", 299 - "b"',
      ]),
      ['unknown field "spec.foo"', 'a', 'b'],
    );
  });

  it('folds a Retry-After header into the error details unless the Status has one', () => {
    const e = new ApiError({ code: 429, reason: 'TooManyRequests', message: 'slow down' });
    assert.equal(withRetryAfter(e, '3').details?.retryAfterSeconds, 3);
    assert.equal(withRetryAfter(e, 'Wed, 21 Oct 2015 07:28:00 GMT'), e);
    const withStatus = new ApiError({
      code: 429,
      reason: 'TooManyRequests',
      message: 'x',
      details: { retryAfterSeconds: 1 },
    });
    assert.equal(withRetryAfter(withStatus, '9').details?.retryAfterSeconds, 1);
  });
});

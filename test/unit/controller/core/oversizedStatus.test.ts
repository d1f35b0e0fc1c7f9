import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isTooLargeError,
  StatusTooLargeError,
  writeBoundedStatus,
} from '../../../../src/controller/core/oversizedStatus.ts';
import { ApiError, type KubeObject } from '../../../../src/kube/index.ts';

const obj: KubeObject = { apiVersion: 'x/v1', kind: 'Echo', metadata: { name: 'e', generation: 2 } };
const now = () => '2026-12-04T00:00:00Z';
const ready = {
  type: 'Ready',
  status: 'True',
  reason: 'Ready',
  message: '',
  observedGeneration: 2,
  lastTransitionTime: now(),
};

describe('writeBoundedStatus', () => {
  it('writes a status that fits as it is', async () => {
    const written: unknown[] = [];
    const status = { copy: 'small', conditions: [ready], state: 'ACTIVE' };
    await writeBoundedStatus({
      what: 'Echo e',
      object: obj,
      status,
      generation: 2,
      now,
      write: async (s) => {
        written.push(s);
        return obj;
      },
    });
    assert.deepEqual(written, [status]);
  });

  it('over the limit: writes the fields that fit, state ERROR and Ready=False StatusTooLarge, then throws', async () => {
    const written: Record<string, unknown>[] = [];
    const status = { copy: 'x'.repeat(5_000), other: 'kept', conditions: [ready], state: 'ACTIVE' };
    const err = await writeBoundedStatus({
      what: 'Echo e',
      object: obj,
      status,
      generation: 2,
      now,
      limitBytes: 2_000,
      write: async (s) => {
        written.push(s);
        return obj;
      },
    }).catch((e: unknown) => e);
    assert.ok(err instanceof StatusTooLargeError);
    assert.equal(err.code, 'KG6091');
    assert.deepEqual(err.tooLarge.dropped, [{ field: 'copy', bytes: 5_002 }]);
    assert.equal(written.length, 1);
    const w = written[0] as {
      other: string;
      copy?: string;
      state: string;
      conditions: { type: string; reason: string; message: string }[];
    };
    assert.equal(w.copy, undefined);
    assert.equal(w.other, 'kept');
    assert.equal(w.state, 'ERROR');
    const r = w.conditions.find((c) => c.type === 'Ready');
    assert.equal(r?.reason, 'StatusTooLarge');
    assert.match(r?.message ?? '', /status\.copy \(5002 bytes\)/);
  });

  it('a refusal by the server is handled the same way, and nothing is rewritten once stored', async () => {
    const status = { copy: 'x'.repeat(5_000), conditions: [ready], state: 'ACTIVE' };
    let stored: Record<string, unknown> | undefined;
    const write = async (s: Record<string, unknown>) => {
      if (JSON.stringify(s).length > 3_000)
        throw new ApiError({
          code: 500,
          reason: 'InternalError',
          message: 'etcdserver: request is too large',
        });
      stored = s;
      return obj;
    };
    const first = await writeBoundedStatus({
      what: 'Echo e',
      object: obj,
      status,
      generation: 2,
      now,
      write,
    }).catch((e: unknown) => e);
    assert.ok(first instanceof StatusTooLargeError);
    assert.match(first.message, /refused the status \(etcdserver: request is too large\)/);
    assert.equal(stored?.state, 'ERROR');
    // Retried: the full status is tried (and refused) again, the smaller one already stored is not rewritten.
    const sent: Record<string, unknown>[] = [];
    const again = await writeBoundedStatus({
      what: 'Echo e',
      object: { ...obj, status: stored },
      status,
      generation: 2,
      now,
      write: async (s) => {
        sent.push(s);
        return write(s);
      },
    }).catch((e: unknown) => e);
    assert.ok(again instanceof StatusTooLargeError);
    assert.deepEqual(sent, [status]);
  });

  it('reads the server refusals', () => {
    assert.ok(isTooLargeError(new ApiError({ code: 413, reason: 'RequestEntityTooLarge', message: 'x' })));
    assert.ok(
      !isTooLargeError(new ApiError({ code: 422, reason: 'Invalid', message: 'spec.x: Required value' })),
    );
  });
});

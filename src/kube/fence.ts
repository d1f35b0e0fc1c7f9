/**
 * Write fencing: a process that may have lost its right to write (its membership Lease was not renewed
 * in time — a pause, a partition) must not send a write it prepared before. A client with a fence asks
 * it before every request that is not a read, and a refusal fails the request locally with a typed error
 * (design/sharding.md §5); reads go on.
 */

/** Decides whether the process may write now. */
export interface WriteFence {
  /** Why writes are refused now; undefined while they are allowed. */
  refusal(): string | undefined;
}

export const WRITE_FENCED = 'WriteFenced';

/** A write refused by the client's fence, before it left the process. */
export class WriteFencedError extends Error {
  readonly code = WRITE_FENCED;
  readonly request: string;

  constructor(reason: string, request: string) {
    super(`write refused (fenced): ${reason}: ${request}`);
    this.name = 'WriteFencedError';
    this.request = request;
  }
}

export function isWriteFenced(e: unknown): e is WriteFencedError {
  return e instanceof WriteFencedError;
}

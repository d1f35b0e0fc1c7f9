/**
 * The one test for "a JSON object" (not null, not an array) that every layer narrows `unknown` with.
 * It lives in diag, the layer every other may import, so no layer keeps a private copy.
 */

/** Whether `v` is a plain JSON object: an object that is neither null nor an array. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `v` as a JSON object, or undefined when it is not one. */
export function asRecord(v: unknown): Record<string, unknown> | undefined {
  return isRecord(v) ? v : undefined;
}

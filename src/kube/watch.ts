/**
 * One watch request: a streaming GET with `watch=true` whose body is one JSON
 * event per line. Ours rather than client-node's `Watch` so watches go through the
 * same client (keep-alive agents, impersonation, request counters, typed errors)
 * and so `ERROR` events (e.g. 410 Expired) become `ApiError`s the informer can act on.
 */
import { createInterface } from 'node:readline';
import { isRecord } from '../diag/record.ts';
import { ApiError, apiErrorFromStatus } from './errors.ts';
import { labelSelector, resourcePath } from './paths.ts';
import type { CallOptions, ResourceTarget, RestClient } from './rest.ts';
import type { KubeObject } from './types.ts';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject;
}

export interface WatchOptions extends Omit<CallOptions, 'timeoutMs'> {
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  /** Server-side watch duration; the server ends the stream after it. */
  timeoutSeconds?: number;
  labelSelector?: string | Record<string, string>;
  fieldSelector?: string;
  /** Events carry PartialObjectMetadata only. */
  metadataOnly?: boolean;
  /** Streaming list (WatchList): initial state as ADDED events, then a bookmark annotated `k8s.io/initial-events-end`. */
  sendInitialEvents?: boolean;
  resourceVersionMatch?: 'NotOlderThan';
  /** Client-side idle limit in ms (default: timeoutSeconds + 90 s, or 5 min; at most 150 s with bookmarks). */
  idleTimeoutMs?: number;
}

export const PARTIAL_METADATA_ACCEPT =
  'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;q=0.9';

/**
 * Watches until the server closes the stream (resolves), the signal aborts
 * (resolves), or an error happens (rejects with ApiError; `ERROR` events included).
 */
export async function watchOnce(
  client: RestClient,
  target: ResourceTarget,
  opts: WatchOptions,
  onEvent: (e: WatchEvent) => void,
): Promise<void> {
  const r = await client.resolve(target);
  const path = resourcePath({ apiVersion: r.apiVersion, plural: r.plural, namespace: r.namespace });
  // Bookmarks arrive about once a minute, so with them a silent connection is a dead one after ~2.5 min.
  const serverLimit = opts.timeoutSeconds !== undefined ? (opts.timeoutSeconds + 90) * 1000 : 300_000;
  const idle =
    opts.idleTimeoutMs ?? (opts.allowWatchBookmarks ? Math.min(serverLimit, 150_000) : serverLimit);
  const req = {
    method: 'GET' as const,
    path,
    query: {
      watch: true,
      resourceVersion: opts.resourceVersion,
      resourceVersionMatch: opts.resourceVersionMatch,
      allowWatchBookmarks: opts.allowWatchBookmarks ? true : undefined,
      timeoutSeconds: opts.timeoutSeconds,
      labelSelector: labelSelector(opts.labelSelector),
      fieldSelector: opts.fieldSelector,
      sendInitialEvents: opts.sendInitialEvents,
    },
    accept: opts.metadataOnly ? PARTIAL_METADATA_ACCEPT : undefined,
    verb: 'watch' as const,
    timeoutMs: idle,
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.impersonate !== undefined ? { impersonate: opts.impersonate } : {}),
  };
  if (opts.signal?.aborted) return;
  let res: Awaited<ReturnType<RestClient['stream']>>;
  try {
    res = await client.stream(req);
  } catch (e) {
    if (opts.signal?.aborted) return;
    throw e;
  }
  if (opts.signal?.aborted) {
    res.destroy();
    return;
  }
  const label = `WATCH ${path}`;
  await new Promise<void>((resolve, reject) => {
    let finished = false;
    const finish = (err?: unknown): void => {
      if (finished) return;
      finished = true;
      opts.signal?.removeEventListener('abort', onAbort);
      lines.close();
      if (!res.destroyed) res.destroy();
      if (err === undefined || opts.signal?.aborted) resolve();
      else reject(err);
    };
    const onAbort = (): void => finish();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const lines = createInterface({ input: res, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on('line', (line) => {
      if (finished || line.trim() === '') return;
      let ev: unknown;
      try {
        ev = JSON.parse(line);
      } catch {
        finish(
          new ApiError({
            code: 0,
            reason: 'BadResponse',
            message: 'invalid JSON in watch stream',
            request: label,
          }),
        );
        return;
      }
      if (!isRecord(ev) || typeof ev.type !== 'string') return;
      if (ev.type === 'ERROR') {
        finish(apiErrorFromStatus(ev.object, label));
        return;
      }
      if (!isRecord(ev.object)) return;
      const type = ev.type as WatchEventType;
      if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED' && type !== 'BOOKMARK') return;
      try {
        onEvent({ type, object: ev.object as KubeObject });
      } catch (e) {
        finish(e);
      }
    });
    res.on('error', (e) => {
      finish(
        e instanceof ApiError
          ? e
          : new ApiError({ code: 0, reason: 'NetworkError', message: e.message, request: label }),
      );
    });
    res.on('aborted', () =>
      finish(
        new ApiError({ code: 0, reason: 'NetworkError', message: 'watch stream aborted', request: label }),
      ),
    );
    lines.on('close', () => finish());
  });
}

/**
 * Where the page's data comes from: the cluster (live, clusterSource.ts) or files rendered offline
 * (offlineSource.ts). The server only knows this interface.
 */
import type { EntrySummary, UiView } from './model.ts';

export interface UiSource {
  /** A sentence shown in the page header (cluster address, or the rendered file). */
  readonly description: string;
  entries(): EntrySummary[];
  /** The view of one entry, undefined when there is no such entry (any more). */
  view(key: string): Promise<UiView | undefined>;
  /** `listener` is called after every change that may alter the entries or a view; returns an unsubscribe. */
  onChange(listener: () => void): () => void;
  close(): Promise<void>;
}

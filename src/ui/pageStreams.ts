/**
 * The server-sent-event streams of the open `kgraph ui` pages: each page subscribes to the
 * entries and one view. Changes reported by the source are coalesced (a few ms), the entries and each
 * subscribed view recomputed once, and sent only to the pages whose JSON changed; a comment line every
 * 20 s keeps idle connections open.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UiSource } from './source.ts';

interface Client {
  res: ServerResponse;
  key: string;
  entries: string;
  view: string;
}

/** How long changes are gathered before the pages are updated (a burst of watch events → one update). */
const COALESCE_MS = 15;
const HEARTBEAT_MS = 20_000;

export class PageStreams {
  private readonly clients = new Set<Client>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private again = false;
  private readonly unsubscribe: () => void;
  private readonly heartbeat: ReturnType<typeof setInterval>;

  constructor(
    private readonly source: UiSource,
    private readonly onError: ((e: unknown) => void) | undefined,
  ) {
    this.unsubscribe = source.onChange(() => this.schedule());
    this.heartbeat = setInterval(() => {
      for (const c of this.clients) c.res.write(': keep-alive\n\n');
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** A view as JSON (`null` when the key names nothing); a failure is reported and sent as `{error, key}`. */
  async viewJson(key: string): Promise<string> {
    try {
      return JSON.stringify((await this.source.view(key)) ?? null);
    } catch (e) {
      this.onError?.(e);
      return JSON.stringify({ error: e instanceof Error ? e.message : String(e), key });
    }
  }

  entriesJson(): string {
    return JSON.stringify({ description: this.source.description, entries: this.source.entries() });
  }

  /** Opens a page's event stream: the entries, then (with a key) the view, then every change of either. */
  async open(req: IncomingMessage, res: ServerResponse, key: string): Promise<void> {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    res.write('retry: 1000\n\n');
    const c: Client = { res, key, entries: '', view: '' };
    this.clients.add(c);
    req.on('close', () => this.clients.delete(c));
    c.entries = this.entriesJson();
    send(c, 'entries', c.entries);
    if (c.key !== '') {
      c.view = await this.viewJson(c.key);
      send(c, 'view', c.view);
    }
  }

  /** Stops listening to the source and ends every stream. */
  close(): void {
    this.unsubscribe();
    clearInterval(this.heartbeat);
    if (this.timer) clearTimeout(this.timer);
    for (const c of this.clients) c.res.end();
    this.clients.clear();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.run();
    }, COALESCE_MS);
  }

  /** One refresh at a time; a change during one schedules another. */
  private async run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      await this.refresh();
    } catch (e) {
      this.onError?.(e);
    } finally {
      this.running = false;
      if (this.again) {
        this.again = false;
        this.schedule();
      }
    }
  }

  private async refresh(): Promise<void> {
    if (this.clients.size === 0) return;
    const entries = this.entriesJson();
    const views = new Map<string, string>();
    for (const c of this.clients) {
      if (c.key !== '' && !views.has(c.key)) views.set(c.key, await this.viewJson(c.key));
    }
    for (const c of this.clients) {
      if (c.entries !== entries) {
        c.entries = entries;
        send(c, 'entries', entries);
      }
      const v = views.get(c.key);
      if (v !== undefined && c.view !== v) {
        c.view = v;
        send(c, 'view', v);
      }
    }
  }
}

function send(c: Client, event: string, data: string): void {
  c.res.write(`event: ${event}\ndata: ${data}\n\n`);
}

/**
 * A real LSP client for tests and benchmarks: `kgraph lsp` spawned as a child process, spoken to through
 * vscode-languageserver-protocol's connection over its stdin/stdout (what an editor does).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  createProtocolConnection,
  type Diagnostic,
  type ProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface LspSession {
  connection: ProtocolConnection;
  child: ChildProcess;
  /** Resolves with the next diagnostics published for `uri` (at `version`, when given). */
  diagnostics(uri: string, version?: number): Promise<Diagnostic[]>;
  /** initialize + initialized. */
  initialize(): Promise<void>;
  open(uri: string, text: string, version?: number): void;
  change(uri: string, text: string, version: number): void;
  /** shutdown + exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  stderr(): string;
}

export function startLsp(args: readonly string[] = []): LspSession {
  const child = spawn(process.execPath, [`${ROOT}/bin/kgraph.js`, 'lsp', '--stdio', ...args], {
    cwd: ROOT,
    env: { ...process.env, KGRAPH_SOURCES: '1', NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (b: Buffer) => {
    err += b.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const connection = createProtocolConnection(
    new StreamMessageReader(child.stdout!),
    new StreamMessageWriter(child.stdin!),
  );
  const waiters: { uri: string; version?: number; resolve: (d: Diagnostic[]) => void }[] = [];
  connection.onNotification(
    'textDocument/publishDiagnostics',
    (p: { uri: string; version?: number; diagnostics: Diagnostic[] }) => {
      for (let i = 0; i < waiters.length; i++) {
        const w = waiters[i]!;
        if (w.uri !== p.uri || (w.version !== undefined && p.version !== w.version)) continue;
        waiters.splice(i--, 1);
        w.resolve(p.diagnostics);
      }
    },
  );
  connection.listen();
  return {
    connection,
    child,
    diagnostics(uri, version) {
      return new Promise((resolve) =>
        waiters.push({ uri, ...(version !== undefined ? { version } : {}), resolve }),
      );
    },
    async initialize() {
      await connection.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {} });
      await connection.sendNotification('initialized', {});
    },
    open(uri, text, version = 1) {
      void connection.sendNotification('textDocument/didOpen', {
        textDocument: { uri, languageId: 'yaml', version, text },
      });
    },
    change(uri, text, version) {
      void connection.sendNotification('textDocument/didChange', {
        textDocument: { uri, version },
        contentChanges: [{ text }],
      });
    },
    async stop() {
      await connection.sendRequest('shutdown');
      await connection.sendNotification('exit');
      const code = await exited;
      connection.dispose();
      return code;
    },
    stderr: () => err,
  };
}

/** A file URI for a path under the repository. */
export function fileUri(path: string): string {
  return pathToFileURL(`${ROOT}/${path}`).href;
}

/** The 0-based position of the n-th occurrence of `needle` in `text`, plus `delta` characters. */
export function positionOf(
  text: string,
  needle: string,
  delta = 0,
  nth = 0,
): { line: number; character: number } {
  let at = -1;
  for (let i = 0; i <= nth; i++) {
    at = text.indexOf(needle, at + 1);
    if (at < 0) throw new Error(`${needle} not found`);
  }
  const o = at + delta;
  const line = text.slice(0, o).split('\n').length - 1;
  return { line, character: o - (text.lastIndexOf('\n', o - 1) + 1) };
}

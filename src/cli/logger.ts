/**
 * The controller's log: human-readable lines on a terminal (pino-pretty: time, level, message and
 * fields), JSON lines otherwise (a pipe, a file, a cluster's log collector), as kubectl-era tools do.
 * `--log-format text|json` overrides the choice; NO_COLOR turns the colours off.
 * pino-pretty is imported only for text: a controller logging JSON never loads it.
 */
import pino, { type Logger } from 'pino';
import { KgraphError } from '../diag/diagnostic.ts';
import { traceLogFields } from '../kube/tracing/tracing.ts';

export type LogFormat = 'auto' | 'text' | 'json';

export function parseLogFormat(text: string): LogFormat {
  if (text === 'auto' || text === 'text' || text === 'json') return text;
  throw new KgraphError('KG6088', `--log-format: unknown format "${text}" (use auto, text or json)`);
}

/** A logger to stdout (fd 1); `auto` is text when stdout is a terminal. */
export async function commandLogger(
  name: string,
  level: string,
  format: LogFormat = 'auto',
): Promise<Logger> {
  const text = format === 'text' || (format === 'auto' && process.stdout.isTTY === true);
  // A line logged inside a traced pass carries its trace_id and span_id (nothing when tracing is off).
  const mixin = traceLogFields;
  if (!text) return pino({ name, level, mixin });
  const { default: pretty } = await import('pino-pretty');
  return pino(
    { name, level, mixin },
    pretty({
      // Synchronous: a line is on the terminal before the process goes on (or exits).
      sync: true,
      colorize: !process.env.NO_COLOR && process.stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,name',
      singleLine: true,
    }),
  );
}

import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { baseEnvironment, CelCode, type CelError, evaluateSource, formatWithCaret } from '../../cel/index.ts';
import { toJson } from '../../cel/json.ts';

export interface CelOptions {
  vars?: string;
  output: string;
}

/** What one `kgraph cel` call prints and its exit code (a value, so tests run it in-process). */
export interface CommandOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Reads a YAML or JSON map of variables; YAML integers become CEL ints (BigInt). */
function readVars(file: string): Record<string, unknown> {
  const text = readFileSync(file, 'utf8');
  const data: unknown = parseYaml(text, { intAsBigInt: true });
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw new Error(`--vars ${file}: expected a map of variable names to values`);
  }
  return data as Record<string, unknown>;
}

function errorOutput(source: string, error: CelError, json: boolean): CommandOutput {
  if (json) {
    const { code, message, position, end } = error;
    return {
      stdout: `${JSON.stringify({ error: { code, message, position, end } })}\n`,
      stderr: '',
      exitCode: 1,
    };
  }
  return { stdout: '', stderr: `${formatWithCaret(source, error)}\n`, exitCode: 1 };
}

function unexpected(err: unknown): CelError {
  const message = err instanceof Error ? err.message : String(err);
  const tooDeep = err instanceof RangeError && /call stack/i.test(message);
  return {
    code: tooDeep ? CelCode.ParseLimit : CelCode.Evaluation,
    kind: tooDeep ? 'limit' : 'evaluation',
    message: tooDeep ? 'expression nested too deeply' : message,
    position: 0,
    end: 0,
  };
}

/** Type-checks and evaluates `expr`; never throws (a bad --vars file or an engine failure is an error result). */
export function runCel(expr: string, opts: CelOptions): CommandOutput {
  if (opts.output !== 'text' && opts.output !== 'json') {
    return {
      stdout: '',
      stderr: `kgraph: unknown output format "${opts.output}" (use text or json)\n`,
      exitCode: 1,
    };
  }
  const json = opts.output === 'json';
  try {
    const vars = opts.vars ? readVars(opts.vars) : {};
    const variables = Object.fromEntries(Object.keys(vars).map((name) => [name, 'dyn']));
    const env = baseEnvironment().extend({ variables });
    const result = evaluateSource(expr, env, vars);
    if (!result.ok) return errorOutput(expr, result.error, json);
    const value = toJson(result.value.value);
    const stdout = json
      ? `${JSON.stringify({ value, type: result.value.type })}\n`
      : `${JSON.stringify(value, null, 2)}\n# type: ${result.value.type}\n`;
    return { stdout, stderr: '', exitCode: 0 };
  } catch (err) {
    return errorOutput(expr, unexpected(err), json);
  }
}

export function registerCelCommand(program: Command): void {
  program
    .command('cel')
    .description('type-check and evaluate one CEL expression in the kgraph environment')
    .argument('<expr>', 'the CEL expression')
    // An expression may start with '-' (`-1`, `-----1`): anything that is not one of our options is the expression.
    .allowUnknownOption()
    .option('--vars <file>', 'YAML or JSON map of variable names to values')
    .option('-o, --output <format>', 'text or json', 'text')
    .action((expr: string, opts: CelOptions) => {
      const out = runCel(expr, opts);
      process.stdout.write(out.stdout);
      process.stderr.write(out.stderr);
      process.exitCode = out.exitCode;
    });
}

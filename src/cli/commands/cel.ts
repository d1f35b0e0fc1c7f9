import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { baseEnvironment, type CelError, evaluateSource, formatWithCaret } from '../../cel/index.ts';
import { toJson } from '../../cel/json.ts';

interface CelOptions {
  vars?: string;
  output: string;
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

function printError(source: string, error: CelError, json: boolean): void {
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ error: { message: error.message, position: error.position } })}\n`,
    );
  } else {
    process.stderr.write(`${formatWithCaret(source, error)}\n`);
  }
  process.exitCode = 1;
}

export function registerCelCommand(program: Command): void {
  program
    .command('cel')
    .description('type-check and evaluate one CEL expression in the kgraph environment')
    .argument('<expr>', 'the CEL expression')
    .option('--vars <file>', 'YAML or JSON map of variable names to values')
    .option('-o, --output <format>', 'text or json', 'text')
    .action((expr: string, opts: CelOptions) => {
      if (opts.output !== 'text' && opts.output !== 'json') {
        throw new Error(`unknown output format "${opts.output}" (use text or json)`);
      }
      const json = opts.output === 'json';
      const vars = opts.vars ? readVars(opts.vars) : {};
      const variables = Object.fromEntries(Object.keys(vars).map((name) => [name, 'dyn']));
      const env = baseEnvironment().extend({ variables });
      const result = evaluateSource(expr, env, vars);
      if (!result.ok) {
        printError(expr, result.error, json);
        return;
      }
      const value = toJson(result.value.value);
      if (json) {
        process.stdout.write(`${JSON.stringify({ value, type: result.value.type })}\n`);
      } else {
        process.stdout.write(`${JSON.stringify(value, null, 2)}\n# type: ${result.value.type}\n`);
      }
    });
}

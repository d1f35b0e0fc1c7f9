/**
 * What the engine needs from the expression layer, behind one small interface so the engine's rules
 * can be tested with any evaluator and the CEL facade stays the only place that knows the CEL engine.
 */
import {
  baseEnvironment,
  type CelEnvironment,
  type CelLimits,
  compile,
  evaluate,
  type Program,
} from '../cel/index.ts';
import { isOmit as celIsOmit } from '../cel/lib/omit.ts';
import type { OpenApiSchema } from '../cel/types/openapi.ts';
import { jsonToCel as jsonToCelBySchema } from '../cel/values.ts';
import { jsonToCel } from './values.ts';

export interface ExprFailure {
  /** `pending`: the data is not there yet (soft). `error`: a genuine error (hard). */
  kind: 'pending' | 'error';
  /** Diagnostic code from the CEL layer (KG11xx). */
  code: string;
  message: string;
}

export type ExprOutcome = { ok: true; value: unknown } | { ok: false; failure: ExprFailure };

export interface EngineHost {
  /** Evaluates one CEL expression (the text between `${` and `}`) over the given variables. */
  evaluate(cel: string, vars: Readonly<Record<string, unknown>>): ExprOutcome;
  /**
   * Converts JSON (a payload literal or an observed object) into the values CEL works with. `type`
   * names the object's kind when the value is a whole observed object, so it can be converted by schema.
   */
  fromJson(value: unknown, type?: { apiVersion: string; kind: string }): unknown;
  /** True for the sentinel `omit()` returns. */
  isOmit(value: unknown): boolean;
}

export interface CelHostOptions {
  /** The environment expressions are compiled in; default: the base environment, undeclared names `dyn`. */
  env?: CelEnvironment;
  /** Detects the `omit()` sentinel. */
  isOmit?: (value: unknown) => boolean;
  /**
   * The OpenAPI schema of a kind, so observed objects are converted by schema (`integer` → int,
   * `number` → double, `format: byte` → bytes, …). Without it, conversion is schemaless.
   */
  schemaFor?: (apiVersion: string, kind: string) => OpenApiSchema | undefined;
  /**
   * Evaluation limits. Default: the CEL layer's deterministic limits (cost, string and list sizes)
   * without the wall-clock guard, so a result never depends on the machine's speed (the engine is
   * pure); the cost budget still stops hostile expressions.
   */
  limits?: Partial<CelLimits>;
}

const DETERMINISTIC_LIMITS: Partial<CelLimits> = { maxDurationMs: Number.POSITIVE_INFINITY };

/** The production host: the CEL facade, with compiled programs cached by source text. */
export function celHost(options: CelHostOptions = {}): EngineHost {
  const env = options.env ?? baseEnvironment().extend({ undeclaredAreDyn: true });
  const programs = new Map<string, Program | ExprFailure>();
  // Variables named like a CEL global (a node `net`, `strings`, …) are declared so they shadow it, as
  // cel-go does; one child environment per set of such names, and programs cached per environment.
  const shadowingEnvs = new Map<string, CelEnvironment>();
  const envFor = (vars: Readonly<Record<string, unknown>>): { env: CelEnvironment; key: string } => {
    const names: string[] = [];
    for (const name in vars) if (env.definesGlobal(name)) names.push(name);
    if (names.length === 0) return { env, key: '' };
    const key = names.sort().join(',');
    let child = shadowingEnvs.get(key);
    if (child === undefined) {
      child = env.extend({ variables: Object.fromEntries(names.map((n) => [n, 'dyn'])) });
      shadowingEnvs.set(key, child);
    }
    return { env: child, key };
  };
  const isOmit = options.isOmit ?? celIsOmit;
  // One options object for every evaluation: the CEL layer merges the limits once per object.
  const evaluateOptions = { limits: { ...DETERMINISTIC_LIMITS, ...options.limits } };
  const host: EngineHost = {
    evaluate(cel, vars) {
      const scope = envFor(vars);
      const cacheKey = scope.key === '' ? cel : `${scope.key}\u0000${cel}`;
      let program = programs.get(cacheKey);
      if (program === undefined) {
        const compiled = compile(cel, scope.env);
        program = compiled.ok
          ? compiled.value
          : { kind: 'error', code: compiled.error.code, message: compiled.error.message };
        programs.set(cacheKey, program);
      }
      if ('kind' in program) return { ok: false, failure: program };
      const result = evaluate(program, vars, evaluateOptions);
      if (result.ok) return { ok: true, value: result.value };
      const e = result.error;
      return {
        ok: false,
        failure: { kind: e.kind === 'pending' ? 'pending' : 'error', code: e.code, message: e.message },
      };
    },
    fromJson: (value) => jsonToCel(value),
    isOmit,
  };
  return options.schemaFor ? withKindSchemas(host, options.schemaFor) : host;
}

/**
 * A host that converts observed objects of the given kinds by their schemas and leaves everything
 * else (expressions, their compiled programs, `omit()`) to `base`: one per compiled graph, sharing
 * the base host's program cache.
 */
export function withKindSchemas(
  base: EngineHost,
  schemaFor: (apiVersion: string, kind: string) => OpenApiSchema | undefined,
): EngineHost {
  return {
    evaluate: (cel, vars) => base.evaluate(cel, vars),
    fromJson(value, type) {
      const schema = type !== undefined ? schemaFor(type.apiVersion, type.kind) : undefined;
      return schema === undefined
        ? base.fromJson(value, type)
        : jsonToCelBySchema(value, schema, { resourceRoot: true });
    },
    isOmit: (value) => base.isOmit(value),
  };
}

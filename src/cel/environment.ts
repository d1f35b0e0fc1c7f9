import { Environment } from './celJs.ts';
import { installCore } from './core.ts';
import { installCostModel } from './costModel.ts';
import { allLibraries } from './lib/index.ts';
import { instrumentEngineOnce } from './probe.ts';
import { shadowAlias } from './shadowing.ts';

/** A CEL type in the engine's notation: `int`, `string`, `list<dyn>`, `map<string, int>`, a registered type name. */
export type CelType = string;

export interface ExtendOptions {
  /** Variables to declare, name → type. */
  readonly variables?: Readonly<Record<string, CelType>>;
  /** Treat every undeclared identifier as `dyn` (evaluation environments over plain JSON). */
  readonly undeclaredAreDyn?: boolean;
  /**
   * Registers object types (and anything else) on the child before variables are declared.
   * Used by src/cel/types to register OpenAPI-derived types dependencies first.
   */
  readonly setup?: (engine: Environment) => void;
}

/**
 * An environment: the engine environment plus what we declared in it. The base environment is built
 * once per process; per-Graph/RGD environments are children made with `extend` (cheap clones).
 */
export class CelEnvironment {
  /** The engine environment; only code inside src/cel may use it. */
  readonly engine: Environment;
  readonly parent: CelEnvironment | undefined;
  readonly #variables: ReadonlyMap<string, CelType>;
  readonly #undeclaredAreDyn: boolean;
  /** Variables that shadow a global identifier, name → engine alias (./shadowing.ts). */
  readonly shadows: ReadonlyMap<string, string>;

  constructor(
    engine: Environment,
    parent: CelEnvironment | undefined,
    variables: ReadonlyMap<string, CelType>,
    undeclaredAreDyn: boolean,
    shadows: ReadonlyMap<string, string> = new Map(),
  ) {
    this.engine = engine;
    this.parent = parent;
    this.shadows = shadows;
    this.#variables = variables;
    this.#undeclaredAreDyn = undeclaredAreDyn;
  }

  /** Variables declared by us in this environment and its ancestors. */
  get variables(): ReadonlyMap<string, CelType> {
    return this.#variables;
  }

  get undeclaredAreDyn(): boolean {
    return this.#undeclaredAreDyn;
  }

  /** Whether `name` is a variable the caller declared (or any name, in a dyn environment). */
  isDeclared(name: string): boolean {
    return this.#undeclaredAreDyn || this.#variables.has(name);
  }

  /** Whether `name` is a global of the environment (a namespace, a type name) rather than our variable. */
  definesGlobal(name: string): boolean {
    return !this.#variables.has(name) && this.engine.hasVariable(name);
  }

  /** A child environment with more variables/types. The parent stays usable but frozen. */
  extend(options: ExtendOptions = {}): CelEnvironment {
    const undeclaredAreDyn = options.undeclaredAreDyn ?? this.#undeclaredAreDyn;
    const engine = this.engine.clone({ unlistedVariablesAreDyn: undeclaredAreDyn });
    options.setup?.(engine);
    const variables = new Map(this.#variables);
    const shadows = new Map(this.shadows);
    for (const [name, type] of Object.entries(options.variables ?? {})) {
      // A name the environment already defines as a global (a namespace, a type name) and that we did
      // not declare ourselves is declared under an alias that expressions are rewritten to.
      const shadowing = this.definesGlobal(name);
      engine.registerVariable(shadowing ? shadowAlias(name) : name, type);
      if (shadowing) shadows.set(name, shadowAlias(name));
      variables.set(name, type);
    }
    return new CelEnvironment(engine, this, variables, undeclaredAreDyn, shadows);
  }
}

let base: CelEnvironment | undefined;

/** Engine options of every kgraph environment (cel-go defaults as kro uses them). */
export const baseEngineOptions = {
  enableOptionalTypes: true,
  unlistedVariablesAreDyn: false,
  homogeneousAggregateLiterals: false,
} as const;

/** Builds a fresh root environment with our core additions and every function library. */
export function buildRootEnvironment(): CelEnvironment {
  instrumentEngineOnce();
  const engine = new Environment(baseEngineOptions);
  installCore(engine);
  for (const library of allLibraries) {
    try {
      library.install(engine);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new Error(`CEL library "${library.name}" failed to install: ${message}`);
    }
  }
  // Last, so that it wraps the handlers the libraries replaced too.
  installCostModel();
  return new CelEnvironment(engine, undefined, new Map(), false);
}

/** The process-wide base environment (built on first use). Extend it; never register into it. */
export function baseEnvironment(): CelEnvironment {
  base ??= buildRootEnvironment();
  return base;
}

/**
 * `cond ? timestamp(…) : null`: cel-go's checker lets `null` join a timestamp, duration, message, `Any` or
 * opaque type (its legacy nullability), the engine refuses ternary branches of different types. We wrap the
 * engine's ternary check: when it refuses and one branch is `null` and the other legacy-nullable, the
 * ternary is typed `dyn` (cel-go: the other branch's type), as the orValue(null) fix in ./fixes.ts does,
 * because the engine picks `==` by static type and its timestamp equality calls a null operand unequal
 * to `null`. Scalars, lists and maps stay refused, as in cel-go.
 *
 * Engine-internal: the operator table is not exported, so it is loaded by its file next to the engine's
 * entry point (the same module instance the engine uses). test/unit/cel/optionals.test.ts fails if an
 * engine upgrade moves it.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const TS = 'google.protobuf.Timestamp';
const DUR = 'google.protobuf.Duration';

export type TypeLike = { readonly kind: string; readonly name: string; readonly valueType?: TypeLike };

/** Types cel-go's checker lets `null` unify with (its legacy nullability): messages, well-known and opaque types. */
export function legacyNullable(t: TypeLike): boolean {
  return (
    t.kind === 'message' ||
    t.kind === 'optional' ||
    t.name === TS ||
    t.name === DUR ||
    t.name === 'google.protobuf.Any'
  );
}

interface TernaryChecker {
  readonly dynType: TypeLike;
  check(ast: unknown, ctx: unknown): TypeLike;
}
interface TernaryNode {
  readonly args: readonly unknown[];
}
type TernaryCheck = (chk: TernaryChecker, ast: TernaryNode, ctx: unknown) => TypeLike;
interface OperatorTable {
  OPERATORS: Record<string, { check: TernaryCheck; [key: string]: unknown }>;
}

const ENGINE = '@marcbachmann/cel-js';
const WRAPPED = Symbol.for('kgraph.cel.nullableTernary');

// The engine's entry is lib/index.js; its operator table is lib/operators.js beside it.
const operatorsUrl = new URL('./operators.js', pathToFileURL(createRequire(import.meta.url).resolve(ENGINE)));
const table = (await import(operatorsUrl.href)) as OperatorTable;

/** Installs the wrapper once per process; nodes parsed afterwards use it (the engine copies `check` per node). */
export function installNullableTernary(): void {
  const ternary = table.OPERATORS['?:'];
  if (!ternary || typeof ternary.check !== 'function') {
    throw new Error('cannot fix the CEL ternary: the engine operator table moved');
  }
  const current = ternary.check as TernaryCheck & { [WRAPPED]?: true };
  if (current[WRAPPED]) return;
  const original = current;
  const wrapped: TernaryCheck & { [WRAPPED]?: true } = (chk, ast, ctx) => {
    try {
      return original(chk, ast, ctx);
    } catch (err) {
      const [, left, right] = ast.args;
      const l = chk.check(left, ctx);
      const r = chk.check(right, ctx);
      const joins = (a: TypeLike, b: TypeLike) => a.name === 'null' && legacyNullable(b);
      if (joins(l, r) || joins(r, l)) return chk.dynType;
      throw err;
    }
  };
  wrapped[WRAPPED] = true;
  ternary.check = wrapped;
}

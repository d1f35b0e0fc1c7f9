import { FUNCTION_COSTS, OPERATOR_COSTS, producedCostOf, scanCost } from './costs.ts';
import { decorateHandlers, type Handler, type HandlerDeclaration } from './engineOverrides.ts';
import { meteredHandler } from './limits.ts';

/** Unary operators; every other operator handler is binary, called as (left, right, ast, evaluator). */
const UNARY = new Set(['!_', '-_']);

/**
 * Installs the cost model (./costs.ts) on every function and operator of the engine, built-in or
 * ours: each handler is wrapped so that, while a budget is active, the call's cost is charged before
 * the handler runs, and what it produced is charged and size-checked (lists, strings, maps) before
 * anything uses it. Without an active budget (trusted callers) the wrapper only forwards the call.
 * Macros (comprehensions, `has`, `cel.bind`, `or`) are not calls: their steps are counted by the
 * instrumented evaluator (./limits.ts).
 */
export function installCostModel(): void {
  decorateHandlers((decl: HandlerDeclaration): Handler => {
    const rule =
      decl.operator !== undefined ? OPERATOR_COSTS[decl.operator] : FUNCTION_COSTS[decl.name ?? ''];
    // A function without an entry (a library added later) is charged by the size of its arguments;
    // test/unit/cel/costs.test.ts makes sure every function of the environment has its own entry.
    const cost =
      rule?.cost ?? ((args: readonly unknown[]) => 1 + args.reduce<number>((n, a) => n + scanCost(a), 0));
    const original = decl.handler as (this: unknown, ...args: unknown[]) => unknown;
    const binary = decl.operator !== undefined && !UNARY.has(decl.operator);
    const produced = producedCostOf(decl.operator !== undefined ? 'operator' : 'function');
    return meteredHandler(original, cost, produced, binary) as Handler;
  });
}

/**
 * kro compatibility (default on): CEL that kgraph's environment accepts but kro's rejects.
 * A manifest kgraph validates must build in kro, so with kro compatibility on (the default) these are
 * errors; `--no-kro-compat` (CompileOptions.kroCompat = false) accepts them as kgraph extensions.
 *
 * - `isSemver(s, normalize)` / `semver(s, normalize)`: kro registers the Kubernetes semver library at
 *   its base version, without the normalize overloads.
 * - `==` / `!=` between int, uint and double (`1 == 1.0`): kro's checker has no heterogeneous
 *   `_==_` overloads; kgraph's evaluator compares numerically, as the CEL spec allows.
 *
 * - A field a CRD declares with only `x-kubernetes-preserve-unknown-fields` and no type: kro (as the
 *   API server) does not expose it to CEL, so reading it is "undefined field"; with `--no-kro-compat`
 *   it is `dyn` (src/cel/types/typeless.ts; the type checker names the flag in the diagnostic).
 *
 * The check walks the parsed AST after a successful type check; operand types are checked on their own
 * source range, so an operand that only type-checks inside a comprehension (a bound variable) is not
 * judged (best effort: no false positives).
 */
import { type CelEnvironment, check, parse } from '../cel/index.ts';

export interface KroIncompatibility {
  message: string;
  /** Range in the expression source. */
  position: number;
  end: number;
}

type Node = { op: string; args: unknown; start: number; end: number };

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && 'op' in v && 'args' in v;
}

const NUMERIC = new Set(['int', 'uint', 'double']);

export function kroIncompatibilities(source: string, env: CelEnvironment): KroIncompatibility[] {
  const parsed = parse(source, env);
  if (!parsed.ok) return [];
  const { engineSource, toOriginal } = parsed.value;
  const out: KroIncompatibility[] = [];
  const at = (n: Node) => ({
    position: toOriginal(n.start),
    end: Math.max(toOriginal(n.start), toOriginal(n.end - 1) + 1),
  });
  const typeOf = (n: Node): string | undefined => {
    const r = check(engineSource.slice(n.start, n.end), env);
    return r.ok ? r.value : undefined;
  };
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const x of v) visit(x);
      return;
    }
    if (!isNode(v)) return;
    const n = v;
    if (n.op === 'call' && Array.isArray(n.args)) {
      const [name, args] = n.args as [string, unknown[]];
      if ((name === 'isSemver' || name === 'semver') && args.length === 2) {
        out.push({
          message: `${name}(s, normalize) is not available in kro (kro registers the Kubernetes semver library without the normalize argument); use ${name}(s)`,
          ...at(n),
        });
      }
    }
    if ((n.op === '==' || n.op === '!=') && Array.isArray(n.args)) {
      const [l, r] = n.args as [Node, Node];
      if (isNode(l) && isNode(r)) {
        const lt = typeOf(l);
        const rt = typeOf(r);
        if (lt && rt && NUMERIC.has(lt) && NUMERIC.has(rt) && lt !== rt) {
          out.push({
            message: `kro's CEL checker has no ${n.op} between ${lt} and ${rt}; convert one side (e.g. double(x) ${n.op} y)`,
            ...at(n),
          });
        }
      }
    }
    visit(n.args);
  };
  visit(parsed.value.ast);
  return out;
}

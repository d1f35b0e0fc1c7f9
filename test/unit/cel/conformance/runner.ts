import type { IncrementalTest, IncrementalTestSuite } from '@bufbuild/cel-spec/testdata/tests.js';
import { getConformanceSuite } from '@bufbuild/cel-spec/testdata/tests.js';
import { baseEnvironment, check, compile, evaluate } from '../../../../src/cel/index.ts';
import { NotApplicable, sameValue, toEngineValue, typeString } from './values.ts';

export type Outcome = 'pass' | 'fail' | 'na';

export interface CaseResult {
  readonly suite: string;
  readonly name: string;
  readonly expr: string;
  readonly outcome: Outcome;
  readonly detail?: string;
}

export interface SuiteTally {
  readonly suite: string;
  pass: number;
  fail: number;
  /** Cases that need protobuf message types or unknowns (not part of kgraph's environment). */
  na: number;
}

/** Expressions naming protobuf test messages or wrapper/JSON message types. */
const PROTO_EXPR =
  /TestAllTypes|NestedTestAllTypes|NestedMessage|GlobalEnum|cel\.expr\.conformance|google\.protobuf\.(?!Duration\b|Timestamp\b)|\bproto[23]\b|\.Any\{/;

function runCase(test: IncrementalTest): { outcome: Outcome; detail?: string } {
  const t = test.original;
  const matcher = t.resultMatcher;
  if (t.container !== '' || PROTO_EXPR.test(t.expr)) return { outcome: 'na', detail: 'protobuf messages' };
  if (matcher.case === 'unknown' || matcher.case === 'anyUnknowns')
    return { outcome: 'na', detail: 'unknowns' };
  try {
    const variables: Record<string, string> = {};
    for (const decl of t.typeEnv) {
      if (decl.declKind.case === 'ident') variables[decl.name] = typeString(decl.declKind.value.type);
    }
    const vars: Record<string, unknown> = {};
    for (const [name, ev] of Object.entries(t.bindings)) {
      if (ev.kind.case !== 'value') return { outcome: 'na', detail: 'non-value binding' };
      vars[name] = toEngineValue(ev.kind.value);
      variables[name] ??= 'dyn';
    }
    const env = baseEnvironment().extend({ variables });
    if (t.checkOnly) {
      const r = check(t.expr, env);
      return r.ok ? { outcome: 'pass' } : { outcome: 'fail', detail: r.error.message };
    }
    let expected: unknown = true;
    if (matcher.case === 'value') expected = toEngineValue(matcher.value);
    else if (matcher.case === 'typedResult') expected = toEngineValue(matcher.value.result);
    const program = compile(t.expr, env);
    const expectsError = matcher.case === 'evalError' || matcher.case === 'anyEvalErrors';
    if (!program.ok) {
      return expectsError
        ? { outcome: 'pass' }
        : { outcome: 'fail', detail: `compile: ${program.error.message}` };
    }
    const result = evaluate(program.value, vars);
    if (expectsError)
      return result.ok ? { outcome: 'fail', detail: 'expected an error' } : { outcome: 'pass' };
    if (!result.ok) return { outcome: 'fail', detail: `eval: ${result.error.message}` };
    return sameValue(result.value, expected)
      ? { outcome: 'pass' }
      : { outcome: 'fail', detail: `got ${describe(result.value)}` };
  } catch (err) {
    if (err instanceof NotApplicable) return { outcome: 'na', detail: err.message };
    return { outcome: 'fail', detail: `threw: ${err instanceof Error ? err.message : String(err)}` };
  }
}

function describe(v: unknown): string {
  try {
    return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x)) ?? String(v);
  } catch {
    return String(v);
  }
}

function collect(suite: IncrementalTestSuite, into: IncrementalTest[]): IncrementalTest[] {
  into.push(...suite.tests);
  for (const s of suite.suites) collect(s, into);
  return into;
}

/** Runs the named top-level suites of google/cel-spec's conformance tests against our environment. */
export function runConformance(suiteNames: readonly string[]): {
  tallies: SuiteTally[];
  cases: CaseResult[];
} {
  const root = getConformanceSuite();
  const tallies: SuiteTally[] = [];
  const cases: CaseResult[] = [];
  for (const name of suiteNames) {
    const suite = root.suites.find((s) => s.name === name);
    if (!suite) throw new Error(`conformance suite ${name} not found in @bufbuild/cel-spec`);
    const tally: SuiteTally = { suite: name, pass: 0, fail: 0, na: 0 };
    for (const test of collect(suite, [])) {
      const r = runCase(test);
      tally[r.outcome]++;
      cases.push({ suite: name, name: test.name, expr: test.original.expr, ...r });
    }
    tallies.push(tally);
  }
  return { tallies, cases };
}

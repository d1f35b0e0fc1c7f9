/**
 * Names the CEL engine cannot declare as variables. Names of its globals (`net`, `strings`, `int`) can be:
 * a variable shadows them as in cel-go (src/cel/shadowing.ts).
 */
/**
 * Names the CEL engine refuses to declare as variables although they match the id patterns
 * (`prototype`; `__proto__` already fails them): a node or iterator so named could never be read.
 */
const UNDECLARABLE = new Set(['prototype', '__proto__']);

export function isUndeclarable(name: string): boolean {
  return UNDECLARABLE.has(name);
}

/**
 * Every name the CEL engine refuses as a variable (its reserved words, `namespace`, the literals and the
 * two object property names above). The compiler reports such ids with a location (reserved words,
 * KG2013; `prototype`, KG2015); the type checker then leaves them undeclared instead of failing.
 */
const ENGINE_RESERVED = new Set([
  ...UNDECLARABLE,
  ...['as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop'],
  ...['package', 'namespace', 'return', 'var', 'void', 'while', 'true', 'false', 'null', 'in'],
]);

export function isEngineReserved(name: string): boolean {
  return ENGINE_RESERVED.has(name);
}

/**
 * A type-checker fix: the engine types an optional selection of an undeclared field on a typed
 * object (`b.?nam`) as `dyn`, so a misspelled field behind optional access goes unnoticed
 * (design/platform.md §3.6). cel-go rejects it like a plain selection. We wrap the checker's
 * `checkAccessOnType` (reached through a probe macro, as the class is not exported) so optional
 * access on an object type with declared fields must name a declared field.
 */
type CheckAccess = (
  this: unknown,
  ast: unknown,
  ctx: unknown,
  leftType: unknown,
  allowMissing?: boolean,
) => unknown;

interface CheckerPrototype {
  checkAccessOnType: CheckAccess;
}

let installed = false;

export function installOptionalFieldCheck(checker: object): void {
  if (installed) return;
  const proto = Object.getPrototypeOf(checker) as CheckerPrototype | null;
  if (proto === null || typeof proto.checkAccessOnType !== 'function') {
    throw new Error(
      'cannot patch the CEL checker: unexpected engine internals (checkAccessOnType not found)',
    );
  }
  const original = proto.checkAccessOnType;
  // The engine passes allowMissing = true only in optional contexts (`.?`, `[?]`, selection on an optional).
  proto.checkAccessOnType = function checkAccessOnType(this: unknown, ast, ctx, leftType) {
    return original.call(this, ast, ctx, leftType, false);
  };
  installed = true;
}

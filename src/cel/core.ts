import type { Environment } from './celJs.ts';
import { installConversions } from './conversions.ts';
import { installEngineFixes } from './fixes.ts';
import { installInternalNamespace } from './internal.ts';
import { installTwoVariableComprehensions } from './macros/comprehensions.ts';
import { installOptionalExtras } from './macros/optionals.ts';
import { installSortBy } from './macros/sortBy.ts';
import { installOperators } from './operators.ts';

/** Installs what our layer adds to the engine itself: macros and conversions (design/platform.md §3.5/§3.6). */
export function installCore(engine: Environment): void {
  installEngineFixes();
  installTwoVariableComprehensions(engine);
  installSortBy(engine);
  installOptionalExtras(engine);
  installConversions(engine);
  installOperators(engine);
  installInternalNamespace(engine);
}

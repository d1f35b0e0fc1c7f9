import type { Environment } from '@marcbachmann/cel-js';

/**
 * A family of CEL functions installed into an engine environment. Libraries are installed once
 * into the root environment; children made with `clone()` inherit them.
 */
export interface CelLibrary {
  name: string;
  install(env: Environment): void;
}

import type { Command } from 'commander';
import { registerClusterCommands } from './cluster.ts';

/**
 * One line per command module. Each module exports a `register…(program)` function
 * and owns its options, so parallel work on commands touches separate files.
 */
export function registerCommands(program: Command): void {
  registerClusterCommands(program);
}

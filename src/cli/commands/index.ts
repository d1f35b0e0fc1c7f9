import type { Command } from 'commander';
import { registerCelCommand } from './cel.ts';
import { registerClusterCommands } from './cluster.ts';
import { registerCompletionCommand } from './completion.ts';
import { registerControllerCommand } from './controller.ts';
import { registerCrdCommand } from './crd.ts';
import { registerDeployCommand } from './deploy.ts';
import { registerGetCommand } from './get.ts';
import { registerGraphCommand } from './graph.ts';
import { registerInstallCommand } from './install.ts';
import { registerRenderCommand } from './render.ts';
import { registerSynthCommand } from './synth.ts';
import { registerUiCommand } from './ui.ts';
import { registerUpCommands } from './up.ts';
import { registerValidateCommand } from './validate.ts';
import { registerVersionCommand } from './version.ts';

/**
 * One line per command module. Each module exports a `register…(program)` function
 * and owns its options, so parallel work on commands touches separate files.
 */
export function registerCommands(program: Command): void {
  registerClusterCommands(program);
  registerSynthCommand(program);
  registerDeployCommand(program);
  registerCelCommand(program);
  registerCrdCommand(program);
  registerValidateCommand(program);
  registerGraphCommand(program);
  registerRenderCommand(program);
  registerInstallCommand(program);
  registerControllerCommand(program);
  registerUpCommands(program);
  registerGetCommand(program);
  registerUiCommand(program);
  registerVersionCommand(program);
  // Last: it completes every command registered before it.
  registerCompletionCommand(program);
}

/**
 * The `kgraph` commands: one module per command (or family, `up`/`down`), each exporting a
 * `register…(program)` that defines its options and action. Modules are imported only when one of their
 * commands runs, so an offline command never loads the kube client or the controller.
 */
import type { Command } from 'commander';
import { KgraphError } from '../../diag/diagnostic.ts';

/** A module's `register…(program)` function: it defines its command(s), options and action. */
export type Register = (program: Command) => void;

export interface CommandModule {
  /** The top-level command names the module registers (`up.ts` registers `up` and `down`). */
  readonly names: readonly string[];
  /** Imports the module (only when one of its commands runs, or for help and completion). */
  readonly load: () => Promise<Register>;
  /** The command works on the whole command tree (completion): running it loads every module. */
  readonly needsAll?: boolean;
}

/**
 * One line per command module, loaded lazily: `kgraph validate` imports the validate module and
 * nothing else (no controller, no client library), and a module that fails to load breaks only its
 * own commands. Each module owns its options, so parallel work on commands touches separate files.
 */
export const commandModules: readonly CommandModule[] = [
  { names: ['cluster'], load: async () => (await import('./cluster.ts')).registerClusterCommands },
  { names: ['synth'], load: async () => (await import('./synth.ts')).registerSynthCommand },
  { names: ['deploy'], load: async () => (await import('./deploy.ts')).registerDeployCommand },
  { names: ['cel'], load: async () => (await import('./cel.ts')).registerCelCommand },
  { names: ['crd'], load: async () => (await import('./crd.ts')).registerCrdCommand },
  { names: ['validate'], load: async () => (await import('./validate.ts')).registerValidateCommand },
  { names: ['graph'], load: async () => (await import('./graph.ts')).registerGraphCommand },
  { names: ['render'], load: async () => (await import('./render.ts')).registerRenderCommand },
  { names: ['install'], load: async () => (await import('./install.ts')).registerInstallCommand },
  { names: ['controller'], load: async () => (await import('./controller.ts')).registerControllerCommand },
  { names: ['up', 'down'], load: async () => (await import('./up.ts')).registerUpCommands },
  { names: ['get'], load: async () => (await import('./get.ts')).registerGetCommand },
  { names: ['rollout'], load: async () => (await import('./rollout.ts')).registerRolloutCommand },
  { names: ['fleet'], load: async () => (await import('./fleet.ts')).registerFleetCommand },
  { names: ['rbac'], load: async () => (await import('./rbac.ts')).registerRbacCommand },
  { names: ['lsp'], load: async () => (await import('./lsp.ts')).registerLspCommand },
  { names: ['ui'], load: async () => (await import('./ui.ts')).registerUiCommand },
  { names: ['version'], load: async () => (await import('./version.ts')).registerVersionCommand },
  // Last: it completes every command registered before it.
  {
    names: ['completion'],
    load: async () => (await import('./completion.ts')).registerCompletionCommand,
    needsAll: true,
  },
];

/**
 * The command word of an argv (`node kgraph [global options] COMMAND …`), if any. The global
 * options take no value, so the first word that is not an option is the command.
 */
export function commandWord(argv: readonly string[]): string | undefined {
  return argv.slice(2).find((a) => !a.startsWith('-'));
}

/**
 * Registers the modules `argv` needs: only the named command's module when the command is known
 * (`--version` alone loads none), every module otherwise (help, completion, an unknown command,
 * which commander then answers with a suggestion, and a command that `needsAll`). A module that fails to load is registered as a
 * command that says so when run, and the others work as usual.
 */
export async function registerCommands(
  program: Command,
  argv: readonly string[],
  modules: readonly CommandModule[] = commandModules,
): Promise<void> {
  const word = commandWord(argv);
  const versionOnly = word === undefined && argv.slice(2).some((a) => a === '-V' || a === '--version');
  if (versionOnly) return;
  const named = word === undefined ? undefined : modules.find((m) => m.names.includes(word));
  for (const m of named && !named.needsAll ? [named] : modules) {
    let register: Register;
    try {
      register = await m.load();
    } catch (err) {
      registerBroken(program, m.names, err);
      continue;
    }
    register(program);
  }
}

function registerBroken(program: Command, names: readonly string[], err: unknown): void {
  const reason = err instanceof Error ? err.message : String(err);
  for (const name of names) {
    program
      .command(name)
      .description(`(unavailable: its module failed to load: ${reason.split('\n')[0]})`)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(() => {
        throw new KgraphError('KG6099', `the \`${name}\` command failed to load: ${reason}`);
      });
  }
}

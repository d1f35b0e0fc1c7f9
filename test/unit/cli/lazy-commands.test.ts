/**
 * Start fast (issue #15 item 3): each command's module is imported only when that command runs, and
 * a module that fails to load breaks only its own command.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import {
  type CommandModule,
  commandModules,
  commandWord,
  registerCommands,
} from '../../../src/cli/commands/index.ts';

const root = resolve(import.meta.dirname, '../../..');

function fakeModule(name: string, loads: string[], ran: string[]): CommandModule {
  return {
    names: [name],
    load: async () => {
      loads.push(name);
      return (program: Command) => {
        program
          .command(name)
          .option('--flag')
          .action(() => {
            ran.push(name);
          });
      };
    },
  };
}

const argv = (...args: string[]) => ['node', 'kgraph', ...args];

describe('lazy command modules', () => {
  it('finds the command word after the global options', () => {
    assert.equal(commandWord(argv('--no-color', 'validate', 'x.yaml')), 'validate');
    assert.equal(commandWord(argv('--version')), undefined);
  });

  it('loads only the module of the command that runs, and none for --version', async () => {
    const loads: string[] = [];
    const ran: string[] = [];
    const modules = [fakeModule('alpha', loads, ran), fakeModule('beta', loads, ran)];
    const program = new Command('kgraph').exitOverride();
    await registerCommands(program, argv('beta', '--flag'), modules);
    await program.parseAsync(argv('beta', '--flag'));
    assert.deepEqual(loads, ['beta']);
    assert.deepEqual(ran, ['beta']);
    loads.length = 0;
    await registerCommands(new Command('kgraph'), argv('--version'), modules);
    assert.deepEqual(loads, []);
  });

  it('a module that fails to load breaks only its own command', async () => {
    const loads: string[] = [];
    const ran: string[] = [];
    const broken: CommandModule = {
      names: ['broken'],
      load: async () => {
        throw new SyntaxError("The requested module './gone.js' does not provide an export named 'x'");
      },
    };
    const modules = [broken, fakeModule('alpha', loads, ran)];
    // Help (no command word) loads everything: the broken command is listed as unavailable.
    const all = new Command('kgraph').exitOverride();
    await registerCommands(all, argv(), modules);
    assert.match(
      all.helpInformation(),
      /broken\s+\(unavailable: its module failed to load: The requested module/,
    );
    await all.parseAsync(argv('alpha'));
    assert.deepEqual(ran, ['alpha']);
    // Running the broken command says why, with a code.
    const one = new Command('kgraph').exitOverride();
    await registerCommands(one, argv('broken', '--whatever'), modules);
    await assert.rejects(
      one.parseAsync(argv('broken', '--whatever')),
      /KG6099|failed to load: The requested module/,
    );
  });

  it('every command module loads and registers the commands it names', async () => {
    for (const m of commandModules) {
      const program = new Command('kgraph');
      (await m.load())(program);
      for (const name of m.names)
        assert.ok(
          program.commands.some((c) => c.name() === name),
          `${name} registered by its module`,
        );
    }
  });

  it('--version loads no command module (the real binary, with a module-resolution hook)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kgraph-lazy-'));
    const hook = join(dir, 'hook.mjs');
    writeFileSync(
      hook,
      `export async function resolve(s, c, next) {
        const r = await next(s, c);
        if (/cli\\/commands\\/(?!index\\.)/.test(r.url)) process.stderr.write('LOADED ' + r.url + '\\n');
        return r;
      }`,
    );
    writeFileSync(
      join(dir, 'register.mjs'),
      `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hook).href)});`,
    );
    const kgraph = (...args: string[]) =>
      spawnSync(
        process.execPath,
        ['--import', join(dir, 'register.mjs'), join(root, 'bin', 'kgraph.js'), ...args],
        {
          encoding: 'utf8',
        },
      );
    try {
      const version = kgraph('--version');
      assert.equal(version.status, 0, version.stderr);
      assert.doesNotMatch(version.stderr, /LOADED/);
      // The hook sees command modules when one is loaded: `version` loads its own and no other.
      const loaded = [...kgraph('version').stderr.matchAll(/LOADED \S*commands\/(\w+)\./g)].map((m) => m[1]);
      assert.deepEqual(loaded, ['version']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

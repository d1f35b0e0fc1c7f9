/**
 * Start fast: each command's module is imported only when that command runs, and
 * a module that fails to load breaks only its own command — in-process with made-up modules, and
 * through the real binary on this checkout's sources (never a dist/ an earlier build left).
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

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The command modules resolved, by file name (`version`). */
  loaded: string[];
}

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

  /**
   * The real binary, bin/kgraph.js, run on this checkout's sources (KGRAPH_SOURCES=1): a dist/ left by an
   * earlier build may be stale, and what it loads says nothing of the code under test. A module
   * resolution hook reports each command module resolved, and breaks the one named by
   * KGRAPH_TEST_BREAK (as a module whose import fails would be). No timeouts: under load tsx only
   * takes longer.
   */
  function realBinary(): {
    kgraph: (env: Record<string, string>, ...args: string[]) => Run;
    done: () => void;
  } {
    const dir = mkdtempSync(join(tmpdir(), 'kgraph-lazy-'));
    const hook = join(dir, 'hook.mjs');
    writeFileSync(
      hook,
      // Written synchronously: the hooks run on their own thread, and an asynchronous write from there can
      // be lost when a short command (kgraph version) exits first (seen once under load).
      `import { writeSync } from 'node:fs';
      export async function resolve(s, c, next) {
        const r = await next(s, c);
        if (/cli\\/commands\\/(?!index\\.)/.test(r.url)) {
          writeSync(2, 'LOADED ' + r.url + '\\n');
          const broken = process.env.KGRAPH_TEST_BREAK;
          if (broken && r.url.endsWith('/cli/commands/' + broken + '.ts'))
            throw new SyntaxError('broken on purpose by the test hook');
        }
        return r;
      }`,
    );
    writeFileSync(
      join(dir, 'register.mjs'),
      `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hook).href)});`,
    );
    const kgraph = (env: Record<string, string>, ...args: string[]): Run => {
      const r = spawnSync(
        process.execPath,
        ['--import', join(dir, 'register.mjs'), join(root, 'bin', 'kgraph.js'), ...args],
        { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', ...env, KGRAPH_SOURCES: '1' } },
      );
      const loaded = [...r.stderr.matchAll(/^LOADED (\S+)$/gm)].map((m) => m[1]!);
      // Every module seen is a source file of this checkout, never a compiled one.
      for (const url of loaded)
        assert.ok(url.startsWith(pathToFileURL(join(root, 'src/cli/commands/')).href), url);
      return {
        status: r.status,
        stdout: r.stdout,
        stderr: r.stderr,
        loaded: loaded.map((u) => u.replace(/^.*\/commands\/(\w+)\.ts$/, '$1')),
      };
    };
    return { kgraph, done: () => rmSync(dir, { recursive: true, force: true }) };
  }

  it('--version loads no command module, `version` only its own (the real binary, on the sources)', () => {
    const { kgraph, done } = realBinary();
    try {
      const version = kgraph({}, '--version');
      assert.equal(version.status, 0, version.stderr);
      assert.deepEqual(version.loaded, []);
      // The hook sees command modules when one is loaded: `version` loads its own and no other.
      const one = kgraph({}, 'version');
      assert.equal(one.status, 0, one.stderr);
      assert.deepEqual(one.loaded, ['version']);
    } finally {
      done();
    }
  });

  it('a command module that fails to load breaks only its own command (the real binary, on the sources)', () => {
    const { kgraph, done } = realBinary();
    const broken = { KGRAPH_TEST_BREAK: 'validate' };
    try {
      // Another command works, and never touches the broken module.
      const version = kgraph(broken, 'version');
      assert.equal(version.status, 0, version.stderr);
      assert.match(version.stdout, /^kgraph \S+ \(node /);
      assert.deepEqual(version.loaded, ['version']);
      // Help loads every module: the broken one is listed as unavailable, the others as usual.
      const help = kgraph(broken, '--help');
      assert.equal(help.status, 0, help.stderr);
      assert.ok(help.loaded.includes('validate') && help.loaded.includes('cel'), help.loaded.join(' '));
      // (Help wraps its lines: compared with white space folded.)
      const text = help.stdout.replace(/\s+/g, ' ');
      assert.match(
        text,
        / validate \(unavailable: its module failed to load: broken on purpose by the test hook\)/,
      );
      assert.match(text, / cel \[options\] <expr> type-check and evaluate/);
      // The broken command says why, with its code, and fails.
      const run = kgraph(broken, 'validate', 'x.yaml');
      assert.equal(run.status, 1);
      assert.match(run.stderr, /KG6099: the `validate` command failed to load: broken on purpose/);
    } finally {
      done();
    }
  });
});

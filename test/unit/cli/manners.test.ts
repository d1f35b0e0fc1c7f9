/** kubectl manners: --version and version, shell completion, one duration syntax, NO_COLOR. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { parseDuration } from '../../../src/cli/duration.ts';

const root = resolve(import.meta.dirname, '../../..');
const bin = join(root, 'bin', 'kgraph.js');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const kgraph = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });

describe('kubectl manners', () => {
  it('--version and version print the package version', () => {
    assert.equal(kgraph('--version').stdout, `${version}\n`);
    assert.equal(kgraph('version').stdout, `kgraph ${version} (node ${process.versions.node})\n`);
  });

  it('bash completion completes commands, nested commands and options', () => {
    const r = kgraph('completion', 'bash');
    assert.equal(r.status, 0, r.stderr);
    const script = join(tmpdir(), `kgraph-completion-${process.pid}.bash`);
    writeFileSync(script, r.stdout);
    const complete = (...words: string[]) =>
      spawnSync(
        'bash',
        [
          '-c',
          `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _kgraph; echo "\${COMPREPLY[@]}"`,
        ],
        { encoding: 'utf8' },
      ).stdout.trim();
    assert.equal(complete('kgraph', 'dep'), 'deploy');
    assert.equal(complete('kgraph', 'cluster', 'st'), 'status');
    assert.equal(complete('kgraph', 'deploy', '--dry'), '--dry-run');
    assert.match(kgraph('completion', 'zsh').stdout, /^#compdef kgraph/);
    assert.match(
      kgraph('completion', 'fish').stdout,
      /complete -c kgraph -n '__fish_seen_subcommand_from deploy' -l dry-run/,
    );
  });

  it('one duration syntax: 90s, 2m, 1h30m, 1500ms, bare seconds', () => {
    assert.equal(parseDuration('90s'), 90_000);
    assert.equal(parseDuration('2m'), 120_000);
    assert.equal(parseDuration('1h30m'), 5_400_000);
    assert.equal(parseDuration('1m30s500ms'), 90_500);
    assert.equal(parseDuration('1500ms'), 1500);
    assert.equal(parseDuration('30'), 30_000);
    assert.throws(() => parseDuration('1h30', '--timeout'), /KG6080|--timeout: invalid duration "1h30"/);
    assert.throws(() => parseDuration(''), /invalid duration/);
    // Every duration flag goes through it: the controller's --lease-duration too (checked before
    // connecting), and `--log-format` is checked as strictly.
    const lease = kgraph('controller', '--lease-duration', '1h30', '--kubeconfig', '/nonexistent');
    assert.equal(lease.status, 1);
    assert.match(lease.stderr, /KG6080: --lease-duration: invalid duration "1h30"/);
    // The planes flags are checked before connecting too: who may sweep is the Lease or a declared
    // single replica, never both.
    const both = kgraph(
      'controller',
      '--planes',
      '--single-replica',
      '--leader-elect',
      '--kubeconfig',
      '/nonexistent',
    );
    assert.equal(both.status, 1);
    assert.match(both.stderr, /--single-replica and --leader-elect exclude each other/);
    const alone = kgraph('controller', '--single-replica', '--kubeconfig', '/nonexistent');
    assert.match(alone.stderr, /--single-replica needs --planes/);
    const format = kgraph('controller', '--log-format', 'yaml');
    assert.match(format.stderr, /KG6088: --log-format: unknown format "yaml" \(use auto, text or json\)/);
  });

  it('NO_COLOR and --no-color turn colours off on a terminal', () => {
    // `script` gives the command a terminal, where colours are on by default.
    const onTerminal = (cmd: string, env: NodeJS.ProcessEnv = process.env) =>
      spawnSync('script', ['-qec', cmd, '/dev/null'], { encoding: 'utf8', env }).stdout;
    const validate = `${process.execPath} ${bin} validate ${join(root, 'examples', 'graphs', 'showcase.yaml')}`;
    assert.match(onTerminal(validate), /\u001b\[/, 'coloured by default on a terminal');
    assert.doesNotMatch(onTerminal(`${validate} --no-color`), /\u001b\[/);
    assert.doesNotMatch(onTerminal(validate, { ...process.env, NO_COLOR: '1' }), /\u001b\[/);
  });
});

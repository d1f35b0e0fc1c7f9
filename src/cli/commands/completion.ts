/**
 * `kgraph completion bash|zsh|fish`: a shell completion script generated from the
 * command tree itself, so every command and option is completed without a list to
 * keep in step. Install: `source <(npx kgraph completion bash)` (see docs/cli.md).
 */
import type { Command } from 'commander';

interface Spec {
  name: string;
  description: string;
  options: { flags: string[]; description: string }[];
  /** Nested commands (`cluster up|down|status`). */
  subcommands: string[];
}

function specs(program: Command): Spec[] {
  return program.commands.map((c) => ({
    name: c.name(),
    description: c.description(),
    options: c.options
      .filter((o) => !o.hidden)
      .map((o) => ({ flags: [o.short, o.long].filter((f): f is string => !!f), description: o.description })),
    subcommands: c.commands.map((s) => s.name()),
  }));
}

const globalFlags = ['--help', '--version', '--no-color'];

function bash(all: Spec[]): string {
  const cases = all
    .map(
      (c) =>
        `    ${c.name}) opts="${[...c.subcommands, ...c.options.flatMap((o) => o.flags), '--help'].join(' ')}" ;;`,
    )
    .join('\n');
  return `# kgraph bash completion: source <(npx kgraph completion bash)
_kgraph() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmd="\${COMP_WORDS[1]}" opts
  if [[ \${COMP_CWORD} -eq 1 ]]; then
    COMPREPLY=($(compgen -W "${all.map((c) => c.name).join(' ')} ${globalFlags.join(' ')}" -- "$cur"))
    return
  fi
  case "$cmd" in
${cases}
    *) opts="--help" ;;
  esac
  if [[ "$cur" == -* || ( \${COMP_CWORD} -eq 2 && "$opts" != --* ) ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi
}
complete -o filenames -F _kgraph kgraph
`;
}

const zq = (s: string) =>
  s.replace(/'/g, "'\\''").replace(/:/g, '\\:').replace(/\[/g, '\\[').replace(/\]/g, '\\]');

function zsh(all: Spec[]): string {
  const commands = all.map((c) => `    '${zq(c.name)}:${zq(c.description)}'`).join('\n');
  const cases = all
    .map((c) => {
      const args = c.options.flatMap((o) => o.flags.map((f) => `'${f}[${zq(o.description)}]'`));
      const rest = c.subcommands.length > 0 ? `'1:command:(${c.subcommands.join(' ')})'` : "'*:file:_files'";
      return `    ${c.name}) _arguments ${[...args, rest].join(' ')} ;;`;
    })
    .join('\n');
  return `#compdef kgraph
# kgraph zsh completion: source <(npx kgraph completion zsh)
_kgraph() {
  local -a commands
  commands=(
${commands}
  )
  if (( CURRENT == 2 )); then _describe 'command' commands; return; fi
  case "\${words[2]}" in
${cases}
  esac
}
compdef _kgraph kgraph
`;
}

const fq = (s: string) => s.replace(/'/g, "\\'");

function fish(all: Spec[]): string {
  const lines = ['# kgraph fish completion: npx kgraph completion fish | source', 'complete -c kgraph -f'];
  for (const c of all) {
    lines.push(`complete -c kgraph -n __fish_use_subcommand -a ${c.name} -d '${fq(c.description)}'`);
    for (const o of c.options) {
      const long = o.flags.find((f) => f.startsWith('--'))?.slice(2);
      const short = o.flags.find((f) => /^-[^-]/.test(f))?.slice(1);
      lines.push(
        `complete -c kgraph -n '__fish_seen_subcommand_from ${c.name}'${long ? ` -l ${long}` : ''}${short ? ` -s ${short}` : ''} -d '${fq(o.description)}'`,
      );
    }
    for (const sub of c.subcommands)
      lines.push(`complete -c kgraph -n '__fish_seen_subcommand_from ${c.name}' -a ${sub}`);
    lines.push(`complete -c kgraph -n '__fish_seen_subcommand_from ${c.name}' -F`);
  }
  return `${lines.join('\n')}\n`;
}

export function completionScript(program: Command, shell: string): string {
  const all = specs(program);
  if (shell === 'bash') return bash(all);
  if (shell === 'zsh') return zsh(all);
  if (shell === 'fish') return fish(all);
  throw new Error(`unknown shell "${shell}" (use bash, zsh or fish)`);
}

export function registerCompletionCommand(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    .argument('<shell>', 'bash, zsh or fish')
    .action((shell: string) => {
      process.stdout.write(completionScript(program, shell));
    });
}

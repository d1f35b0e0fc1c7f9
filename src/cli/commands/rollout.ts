/**
 * `kgraph rollout status|promote|pause|resume|abort|retry|undo RGD`: reads and steers the GraphRollout of
 * an RGD (docs/rollout.md). Each action is an edit of the rollout's spec the controller acts on
 * (controller/rgd/rollout/actions.ts); `undo` puts the stable revision's spec back into the RGD.
 */
import type { Command } from 'commander';
import {
  getRollout,
  type RolloutAction,
  rolloutAction,
  rolloutSummary,
} from '../../controller/rgd/rollout/actions.ts';
import { connect } from '../../kube/connect.ts';

interface ConnectOptions {
  kubeconfig?: string;
  context?: string;
}

const ACTIONS: { name: RolloutAction; what: string; done: string }[] = [
  { name: 'promote', what: 'release the pause the rollout waits at', done: 'promoted' },
  { name: 'pause', what: 'stop assigning instances (those in flight finish)', done: 'paused' },
  { name: 'resume', what: 'assign instances again after a pause', done: 'resumed' },
  {
    name: 'abort',
    what: 'stop and move every updated instance back to the stable revision',
    done: 'aborted',
  },
  { name: 'retry', what: 'start the current step again after a halt, rollback or abort', done: 'retried' },
  { name: 'undo', what: "put the stable revision's spec back into the RGD", done: 'undone' },
];

function withConnection(c: Command): Command {
  return c
    .option('--kubeconfig <path>', 'kubeconfig (default: KUBECONFIG, ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context');
}

export function registerRolloutCommand(program: Command): void {
  const rollout = program
    .command('rollout')
    .description("show and steer the progressive rollout of an RGD's changes (its GraphRollout)");
  withConnection(rollout.command('status').argument('<rgd>', 'the RGD (and GraphRollout) name'))
    .description('phase, revisions, step and fleet counts of the rollout')
    .option('-o, --output <format>', 'text or json', 'text')
    .action(async (rgd: string, opts: ConnectOptions & { output: string }) => {
      if (opts.output !== 'text' && opts.output !== 'json')
        throw new Error(`unknown output format "${opts.output}" (use text or json)`);
      const client = connect(opts.kubeconfig, opts.context ? { context: opts.context } : {});
      try {
        const ro = await getRollout(client, rgd);
        process.stdout.write(
          opts.output === 'json' ? `${JSON.stringify(ro.status ?? {}, null, 2)}\n` : rolloutSummary(ro),
        );
      } finally {
        client.close();
      }
    });
  for (const a of ACTIONS) {
    withConnection(rollout.command(a.name).argument('<rgd>', 'the RGD (and GraphRollout) name'))
      .description(a.what)
      .action(async (rgd: string, opts: ConnectOptions) => {
        const client = connect(opts.kubeconfig, opts.context ? { context: opts.context } : {});
        try {
          await rolloutAction(client, rgd, a.name);
          process.stdout.write(`graphrollout.kgraph.dev/${rgd} ${a.done}\n`);
        } finally {
          client.close();
        }
      });
  }
}

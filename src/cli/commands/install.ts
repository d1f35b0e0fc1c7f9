import type { Command } from 'commander';
import { installGraphCrd } from '../../controller/crd.ts';
import { connect } from '../../kube/connect.ts';

export function registerInstallCommand(program: Command): void {
  program
    .command('install')
    .description(
      'install the Graph CRD (kro.run/v1alpha1) with server-side apply and wait until it is Established',
    )
    .option('--kubeconfig <path>', 'kubeconfig (default: KUBECONFIG, ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context')
    .action(async (opts: { kubeconfig?: string; context?: string }) => {
      const client = connect(opts.kubeconfig, opts.context ? { context: opts.context } : {});
      try {
        const crd = await installGraphCrd(client);
        process.stdout.write(`customresourcedefinition/${crd.metadata.name} established\n`);
      } finally {
        client.close();
      }
    });
}

import type { Command } from 'commander';
import { installGraphCrd } from '../../controller/graph/crd.ts';
import { installPlaneCrds } from '../../controller/planes/crds.ts';
import { installRgdCrd } from '../../controller/rgd/crd.ts';
import { kubectlName } from '../../diag/objectName.ts';
import { connect } from '../../kube/connect.ts';

/** `customresourcedefinition.apiextensions.k8s.io/graphs.kro.run established`, as kubectl names it. */
const established = (crd: { apiVersion?: string; metadata: { name?: string } }): string =>
  `${kubectlName({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: crd.metadata.name ?? '' })} established\n`;

export function registerInstallCommand(program: Command): void {
  program
    .command('install')
    .description(
      'install the Graph and ResourceGraphDefinition CRDs (kro.run/v1alpha1) with server-side apply and wait until they are Established',
    )
    .option('--kubeconfig <path>', 'kubeconfig (default: KUBECONFIG, ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context')
    .option(
      '--planes',
      'also install the krop blueprint and ConsumerCluster CRDs (krop.opendefense.cloud/v1alpha1)',
    )
    .action(async (opts: { kubeconfig?: string; context?: string; planes?: boolean }) => {
      const client = connect(opts.kubeconfig, opts.context ? { context: opts.context } : {});
      try {
        for (const crd of [await installGraphCrd(client), await installRgdCrd(client)]) {
          process.stdout.write(established(crd));
        }
        if (opts.planes) {
          for (const crd of await installPlaneCrds(client)) {
            process.stdout.write(established(crd));
          }
        }
      } finally {
        client.close();
      }
    });
}

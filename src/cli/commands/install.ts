import type { Command } from 'commander';
import { installGraphCrd } from '../../controller/graph/crd.ts';
import { installPlaneCrds } from '../../controller/planes/crds.ts';
import { installRgdCrd } from '../../controller/rgd/crd.ts';
import { GRAPH_REVISION_CRD_NAME, RGD_CRD_NAME } from '../../controller/rgd/names.ts';
import { ROLLOUT_CRD_NAME } from '../../controller/rgd/rollout/names.ts';
import { kubectlName } from '../../diag/objectName.ts';
import { connect } from '../../kube/connect.ts';

/** `customresourcedefinition.apiextensions.k8s.io/graphs.kro.run established`, as kubectl names it. */
const established = (crd: { apiVersion?: string; metadata: { name?: string } }): string =>
  `${kubectlName({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: crd.metadata.name ?? '' })} established\n`;

export function registerInstallCommand(program: Command): void {
  program
    .command('install')
    .description(
      'install the Graph and ResourceGraphDefinition CRDs (kro.run/v1alpha1) the GraphRevision CRD (internal.kro.run/v1alpha1) and the GraphRollout CRD (kgraph.dev/v1alpha1) with server-side apply and wait until they are Established',
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
          // installRgdCrd waits for the GraphRevision and GraphRollout CRDs that go with the RGD's.
          if (crd.metadata.name === RGD_CRD_NAME) {
            process.stdout.write(established({ metadata: { name: GRAPH_REVISION_CRD_NAME } }));
            process.stdout.write(established({ metadata: { name: ROLLOUT_CRD_NAME } }));
          }
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

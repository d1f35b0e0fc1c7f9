/** The chart's CRDs (charts/kgraph/crds), applied as `kubectl apply --server-side --force-conflicts -f` would. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../src/kube/index.ts';
import type { RestClient } from '../../src/kube/rest.ts';
import { repoRoot } from '../../src/localplane/localControlPlane.ts';

export async function applyChartCrds(admin: RestClient): Promise<void> {
  const dir = join(repoRoot, 'charts', 'kgraph', 'crds');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml')))
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      const crd = doc.toJS() as KubeObject | null;
      if (crd) await admin.apply(crd, { fieldManager: 'kubectl', force: true });
    }
}

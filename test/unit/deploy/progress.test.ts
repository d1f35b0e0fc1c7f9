/** Plain deploy progress: kubectl-style names, one line per state change, a heartbeat while waiting. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DeployEvent, DeployResult } from '../../../src/deploy/deployer.ts';
import { keyName } from '../../../src/deploy/inventory.ts';
import { withPlainProgress } from '../../../src/deploy/progress.ts';

describe('deploy progress without a terminal', () => {
  it('names objects as kubectl does', () => {
    assert.equal(keyName('apps/v1/Deployment/orders/web'), 'deployment.apps/web -n orders');
    assert.equal(keyName('v1/Namespace//orders'), 'namespace/orders');
    assert.equal(keyName('v1/ConfigMap/orders/settings'), 'configmap/settings -n orders');
    assert.equal(
      keyName('apiextensions.k8s.io/v1/CustomResourceDefinition//dashboards.example.kgraph.dev'),
      'customresourcedefinition.apiextensions.k8s.io/dashboards.example.kgraph.dev',
    );
  });

  it('prints each state change once, and a heartbeat naming what it waits for when nothing changes', async () => {
    const lines: string[] = [];
    const ev = (type: DeployEvent['type'], key: string, message?: string): DeployEvent => ({
      type,
      key,
      at: 0,
      ...(message ? { message } : {}),
    });
    const result = await withPlainProgress(
      (l) => lines.push(l),
      async (onEvent) => {
        onEvent(ev('applied', 'apps/v1/Deployment/orders/web'));
        onEvent(ev('waiting-ready', 'apps/v1/Deployment/orders/web', '0/1 available'));
        onEvent(ev('ready', 'v1/ConfigMap/orders/settings'));
        await new Promise((r) => setTimeout(r, 450));
        onEvent(ev('ready', 'apps/v1/Deployment/orders/web'));
        return { ok: true } as DeployResult;
      },
      100,
    );
    assert.ok(result.ok);
    assert.match(lines[0]!, /applied\s+deployment\.apps\/web -n orders$/);
    assert.match(lines[1]!, /waiting-ready\s+deployment\.apps\/web -n orders {2}0\/1 available$/);
    const beats = lines.filter((l) => /still\s+waiting for/.test(l));
    assert.ok(beats.length >= 2, lines.join('\n'));
    assert.match(beats[0]!, /waiting for deployment\.apps\/web -n orders \(waiting-ready: 0\/1 available\)$/);
    assert.ok(!beats[0]!.includes('configmap'), 'a ready object is not waited for');
    assert.match(lines.at(-1)!, /ready\s+deployment\.apps\/web -n orders$/);
  });
});

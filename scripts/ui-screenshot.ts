/**
 * Makes docs/ui-screenshot.png, the picture of `kgraph ui` in the README and docs/ui.md: the page of
 * the offline render of the showcase example (no cluster needed), in
 * headless Debian Chromium. Run: node --import tsx scripts/ui-screenshot.ts
 */
import { join } from 'node:path';
import { offlineUiSource } from '../src/cli/commands/ui.ts';
import { repoRoot } from '../src/localplane/localControlPlane.ts';
import { startUiServer } from '../src/ui/server.ts';
import { launchBrowser } from '../test/support/browser.ts';

const ex = (p: string): string => join('examples', p);
process.chdir(repoRoot);
const source = offlineUiSource({
  addr: '',
  namespace: [],
  render: ex('graphs/showcase.yaml'),
  state: [ex('cluster/showcase-settings.yaml'), ex('state/showcase-observed.yaml')],
  crd: [],
});
const server = await startUiServer({ source, port: 0 });
const browser = await launchBrowser({ width: 1200, height: 560 });
try {
  const { page } = browser;
  await page.goto(`${server.url}#${encodeURIComponent('graph:kgraph-examples/showcase')}`);
  await page.waitForSelector('#dag g.node[data-node="tierServices"][data-state="ready"]');
  const out = join(repoRoot, 'docs', 'ui-screenshot.png');
  await page.screenshot({ path: out });
  process.stdout.write(`${out}\n`);
} finally {
  await browser.close();
  await server.close();
  await source.close();
}

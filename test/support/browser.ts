/**
 * Headless Chromium for the `kgraph ui` tests (and its screenshot script and benchmark): Debian's /usr/bin/chromium (installed by .ci/run)
 * driven by playwright-core, with the flags this machine's closed network needs and a fresh profile.
 * Screenshots go to test-results/ui/ (gitignored): the test run's artefacts.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { repoRoot } from '../../src/localplane/localControlPlane.ts';

export const CHROMIUM = process.env.KGRAPH_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = join(repoRoot, 'test-results', 'ui');

export interface TestBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function launchBrowser(
  viewport: { width: number; height: number } = { width: 1500, height: 900 },
): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'kgraph-ui-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const browser = context.browser() as Browser;
  const page = context.pages()[0] ?? (await context.newPage());
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    browser,
    context,
    page,
    async screenshot(name) {
      const file = join(ARTIFACTS, `${name}.png`);
      await page.screenshot({ path: file, fullPage: false });
      return file;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

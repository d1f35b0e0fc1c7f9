// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the demo text holds kgraph ${…} syntax
/**
 * Makes docs/editor-screenshot.png, the picture of `kgraph lsp` in docs/editor.md: headless Neovim
 * (editors/neovim/kgraph.lua) in a tmux pane, a kro RGD with a misspelt node id and a completion popup
 * after `${deployment.metadata.`; the pane is captured with its colours and drawn by headless Chromium.
 * Needs Debian's neovim, tmux and chromium (.ci/run installs them). Run: node --import tsx scripts/editor-screenshot.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../src/localplane/localControlPlane.ts';
import { launchBrowser } from '../test/support/browser.ts';

const COLS = 132;
const ROWS = 44;
const session = `kgraph-shot-${process.pid}`;
const dir = mkdtempSync(join(tmpdir(), 'kgraph-editor-'));
const demo = join(dir, 'webapp.yaml');
writeFileSync(
  demo,
  readFileSync(join(repoRoot, 'test/unit/lsp/fixtures/webapp-rgd.yaml'), 'utf8')
    .split('\n')
    .slice(2)
    .join('\n')
    .replace('availableReplicas: ${deployment.status', 'availableReplicas: ${deploymnt.status'),
);
const init = join(dir, 'init.lua');
writeFileSync(
  init,
  `package.path = '${repoRoot}/editors/neovim/?.lua;' .. package.path
vim.o.number = true
vim.o.signcolumn = 'yes'
vim.o.autoindent = false
vim.o.shortmess = vim.o.shortmess .. 'I'
vim.o.completeopt = 'menuone,noinsert'
vim.o.hlsearch = false
vim.cmd('syntax on')
vim.cmd('filetype on')
vim.cmd('highlight SignColumn ctermbg=NONE')
vim.cmd('highlight Pmenu ctermbg=238 ctermfg=252')
vim.cmd('highlight PmenuSel ctermbg=25 ctermfg=231')
vim.diagnostic.config({ update_in_insert = true })
vim.api.nvim_create_autocmd('FileType', { pattern = 'yaml', callback = function() vim.bo.indentexpr = '' end })
require('kgraph').setup({ cmd = { 'node', '${repoRoot}/bin/kgraph.js', 'lsp', '--stdio' } })
`,
);

const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

tmux(
  'new-session',
  '-d',
  '-s',
  session,
  '-x',
  String(COLS),
  '-y',
  String(ROWS),
  `env KGRAPH_SOURCES=1 TERM=xterm-256color nvim -u ${init} -i NONE ${demo}`,
);
let ansi: string;
try {
  await sleep(6000);
  // From the status (the misspelt id) to the Service: a new line under its name asks for deployment.metadata's fields.
  tmux('send-keys', '-t', session, ':8', 'Enter', 'zt');
  tmux('send-keys', '-t', session, '/-service', 'Enter', 'o', '          namespace: ${deployment.metadata.');
  await sleep(1500);
  tmux('send-keys', '-t', session, 'C-x', 'C-o');
  await sleep(2500);
  ansi = tmux('capture-pane', '-p', '-e', '-t', session);
} finally {
  tmux('kill-session', '-t', session);
}

const browser = await launchBrowser({ width: 1050, height: ROWS * 17 + 16 });
try {
  await browser.page.setContent(toHtml(ansi));
  const out = join(repoRoot, 'docs', 'editor-screenshot.png');
  await browser.page.screenshot({ path: out });
  process.stdout.write(`${out}\n`);
} finally {
  await browser.close();
}

/** The xterm 256-colour palette. */
function xterm(n: number): string {
  const base = [
    '#1e1e1e',
    '#cd3131',
    '#0dbc79',
    '#e5e510',
    '#2472c8',
    '#bc3fbc',
    '#11a8cd',
    '#e5e5e5',
    '#666666',
    '#f14c4c',
    '#23d18b',
    '#f5f543',
    '#3b8eea',
    '#d670d6',
    '#29b8db',
    '#ffffff',
  ];
  if (n < 16) return base[n]!;
  if (n < 232) {
    const c = n - 16;
    const v = (x: number) => (x === 0 ? 0 : 55 + x * 40);
    return `rgb(${v(Math.floor(c / 36))},${v(Math.floor(c / 6) % 6)},${v(c % 6)})`;
  }
  const g = 8 + (n - 232) * 10;
  return `rgb(${g},${g},${g})`;
}

/** The captured pane (SGR colour sequences) as an HTML page. */
function toHtml(text: string): string {
  let fg: string | undefined;
  let bg: string | undefined;
  let bold = false;
  let reverse = false;
  let html = '';
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  for (const part of text.split(/(\x1b\[[0-9;]*m)/)) {
    const m = /^\x1b\[([0-9;]*)m$/.exec(part);
    if (!m) {
      if (part === '') continue;
      const [f, b] = reverse ? [bg ?? '#1e1e1e', fg ?? '#d4d4d4'] : [fg, bg];
      const style = `${f ? `color:${f};` : ''}${b ? `background:${b};` : ''}${bold ? 'font-weight:bold;' : ''}`;
      html += style ? `<span style="${style}">${esc(part)}</span>` : esc(part);
      continue;
    }
    const codes = (m[1] || '0').split(';').map(Number);
    for (let i = 0; i < codes.length; i++) {
      const c = codes[i]!;
      if (c === 0) [fg, bg, bold, reverse] = [undefined, undefined, false, false];
      else if (c === 1) bold = true;
      else if (c === 7) reverse = true;
      else if (c === 22) bold = false;
      else if (c === 27) reverse = false;
      else if (c >= 30 && c <= 37) fg = xterm(c - 30);
      else if (c >= 90 && c <= 97) fg = xterm(c - 90 + 8);
      else if (c >= 40 && c <= 47) bg = xterm(c - 40);
      else if (c >= 100 && c <= 107) bg = xterm(c - 100 + 8);
      else if (c === 39) fg = undefined;
      else if (c === 49) bg = undefined;
      else if ((c === 38 || c === 48) && codes[i + 1] === 5) {
        const col = xterm(codes[i + 2]!);
        if (c === 38) fg = col;
        else bg = col;
        i += 2;
      } else if ((c === 38 || c === 48) && codes[i + 1] === 2) {
        const col = `rgb(${codes[i + 2]},${codes[i + 3]},${codes[i + 4]})`;
        if (c === 38) fg = col;
        else bg = col;
        i += 4;
      }
    }
  }
  return `<!doctype html><html><body style="margin:0;background:#1e1e1e"><pre style="margin:8px;font:13px/17px 'DejaVu Sans Mono',monospace;color:#d4d4d4">${html}</pre></body></html>`;
}

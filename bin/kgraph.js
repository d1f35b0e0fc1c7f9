#!/usr/bin/env node
// The kgraph CLI runs the compiled JavaScript in dist/ (built by `npm run build`, which `npm ci`
// and `npm pack` run through the `prepare` script), so nothing is transpiled at start-up.
// In a checkout, KGRAPH_SOURCES=1 runs the TypeScript sources through tsx instead (the test runner
// sets it, so tests exercise the sources without a build), and so does a checkout without dist/.
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

// `kgraph controller` is long-running and mostly idle: V8's young generation would double its
// semi-spaces at every growth (to 16 MiB each), memory a controller holds and rarely uses. A growth
// factor of 1 keeps them at their initial size (bench/README.md, "RGD controller memory": steady RSS
// and the CPU it costs). Set before anything is allocated in earnest; a flag given to node wins.
const command = process.argv.slice(2).find((a) => !a.startsWith('-'));
const explicit = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) =>
  a.startsWith('--semi-space-growth-factor'),
);
if (command === 'controller' && !explicit) setFlagsFromString('--semi-space-growth-factor=1');

const compiled = new URL('../dist/cli/main.js', import.meta.url);
const sources = new URL('../src/cli/main.ts', import.meta.url);
const hasCompiled = existsSync(compiled);
let entry = compiled;
if (existsSync(sources) && (process.env.KGRAPH_SOURCES === '1' || !hasCompiled)) {
  if (!hasCompiled && process.env.KGRAPH_SOURCES !== '1')
    process.stderr.write('kgraph: no dist/ (`npm run build` makes it); running the sources through tsx\n');
  // Both hooks: a CommonJS SDK package loaded by `synth`/`deploy` needs the CommonJS one too.
  const { register: registerCjs } = await import('tsx/cjs/api');
  const { register } = await import('tsx/esm/api');
  registerCjs();
  register();
  entry = sources;
} else if (!hasCompiled) {
  process.stderr.write('kgraph: dist/cli/main.js is missing: this installation is incomplete\n');
  process.exit(1);
}
const { main } = await import(entry.href);
await main(process.argv);

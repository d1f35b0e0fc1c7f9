#!/usr/bin/env node
// The kgraph CLI runs the compiled JavaScript in dist/ (built by `npm run build`, which `npm ci`
// and `npm pack` run through the `prepare` script), so nothing is transpiled at start-up.
// In a checkout, KGRAPH_SOURCES=1 runs the TypeScript sources through tsx instead (the test runner
// sets it, so tests exercise the sources without a build), and so does a checkout without dist/.
import { existsSync } from 'node:fs';

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

#!/usr/bin/env node
// The kgraph CLI runs its TypeScript sources through tsx, so a fresh clone works
// right after `npm ci` without a build step.
import { register as registerCjs } from 'tsx/cjs/api';
import { register } from 'tsx/esm/api';

// Both hooks: an SDK package (`kgraph synth|deploy pkg.ts`) outside an ESM ("type": "module")
// package is loaded as CommonJS, and without the CommonJS hook it fails to load.
registerCjs();
register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv);

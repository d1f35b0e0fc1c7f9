#!/usr/bin/env node
// The kgraph CLI runs its TypeScript sources through tsx, so a fresh clone works
// right after `npm ci` without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv);

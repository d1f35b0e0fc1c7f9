// After `tsc -p tsconfig.build.json`: what tsc does not do for the shipped package.
//  - The declaration files keep our `.ts` import specifiers (rewriteRelativeImportExtensions
//    rewrites only the JavaScript); a consumer's tsc resolves `./x.js` to `./x.d.ts`, so rewrite them.
//  - The UI page's static assets (src/ui/static) are served from beside dist/ui/server.js.
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');
const specifier = /((?:from|import)\s*\(?\s*['"])(\.{1,2}\/[^'"]*?)\.ts(['"])/g;

let rewritten = 0;
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
  const file = join(entry.parentPath, entry.name);
  const text = readFileSync(file, 'utf8');
  const next = text.replace(specifier, '$1$2.js$3');
  if (next !== text) {
    writeFileSync(file, next);
    rewritten++;
  }
}
cpSync(join(root, 'src', 'ui', 'static'), join(dist, 'ui', 'static'), { recursive: true });
process.stdout.write(`postbuild: ${rewritten} declaration file(s) rewritten, ui assets copied\n`);

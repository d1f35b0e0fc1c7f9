/**
 * Lets `import()` load a user's TypeScript package (`kgraph synth app.ts`). The CLI itself runs
 * compiled JavaScript, so tsx's loader hooks are registered only when a package is loaded, never
 * at start-up. Run from the sources (this file is `.ts`), tsx is registered already (bin/kgraph.js).
 */
let registered = import.meta.url.endsWith('.ts');

export async function enableTypeScriptImports(): Promise<void> {
  if (registered) return;
  registered = true;
  // Both hooks: a package in a CommonJS project (no "type": "module") is loaded as CommonJS.
  const { register: registerCjs } = await import('tsx/cjs/api');
  const { register } = await import('tsx/esm/api');
  registerCjs();
  register();
}

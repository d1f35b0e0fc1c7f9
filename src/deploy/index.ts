/**
 * The ordered deployer (`kgraph deploy`, design/sdk.md §B6): reads synthesized manifests, plans
 * (`--dry-run`), applies them with server-side apply as soon as their dependencies are ready, waits for
 * readiness per kind, handles Jobs, and prunes what the previous run's inventory has and this one does
 * not. It reads only the `kix.run/*` annotations, so it also deploys YAML produced elsewhere.
 */
export * from './cede.ts';
export * from './decide.ts';
export * from './deployer.ts';
export * from './inventory.ts';
export * from './jobs.ts';
export * from './load.ts';
export * from './outDir.ts';
export * from './ownership.ts';
export * from './plan.ts';
export * from './progress.ts';
export * from './readiness.ts';

export * from './cede.ts';
export * from './deployer.ts';
export * from './inventory.ts';
export * from './jobs.ts';
export * from './load.ts';
export * from './plan.ts';
export * from './progress.ts';
export * from './readiness.ts';

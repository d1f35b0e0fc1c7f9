/**
 * Shared by the benchmarks: medians, the run's context line, writing a section of bench/README.md, a
 * fresh local control plane with an admin client, and the RGD controller as its own process.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '../src/kube/kubeconfig.ts';
import { RestClient } from '../src/kube/rest.ts';
import { type LocalControlPlane, startLocalControlPlane } from '../src/localplane/localControlPlane.ts';

/** The median (the mean of the two middle values for an even count); 0 for no values. */
export function median(xs: number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The 1-minute load average, one decimal. */
export function loadAverage(): string {
  return (loadavg()[0] ?? 0).toFixed(1);
}

/** `Measured by \`node --import tsx bench/<script> --write\` (Node …, date, shared 2-core machine[, details]).` */
export function measuredBy(script: string, details?: string): string {
  const date = new Date().toISOString().slice(0, 10);
  return `Measured by \`node --import tsx bench/${script} --write\` (Node ${process.version}, ${date}, shared 2-core machine${details ? `, ${details}` : ''}).`;
}

const README = join(import.meta.dirname, 'README.md');
const HEADER = '# Benchmarks\n\nNumbers from `bench/*.bench.ts`; each section is written by its benchmark.\n';

/**
 * Replaces the section of bench/README.md that starts with the first line of `section` (`## Title`)
 * up to the next `## ` heading, or appends it; sections are separated by one blank line.
 */
export function writeReadmeSection(section: string): void {
  const heading = section.slice(0, section.indexOf('\n'));
  if (!heading.startsWith('## ')) throw new Error(`a README section starts with "## ": ${heading}`);
  let text: string;
  try {
    text = readFileSync(README, 'utf8');
  } catch {
    text = HEADER;
  }
  const body = section.trimEnd();
  const start = text.indexOf(`${heading}\n`);
  if (start < 0) {
    text = `${text.trimEnd()}\n\n${body}\n`;
  } else {
    const next = text.indexOf('\n## ', start + 1);
    text = `${text.slice(0, start)}${body}\n${next < 0 ? '' : `\n${text.slice(next + 1)}`}`;
  }
  writeFileSync(README, text);
}

export interface BenchPlane {
  plane: LocalControlPlane;
  /** The plane's admin kubeconfig, loaded. */
  kc: KubeConfig;
  admin: RestClient;
  /** Closes the admin client, stops the plane and removes its data directory. */
  stop(): Promise<void>;
}

/**
 * An ephemeral local control plane in a new temporary directory (`kgraph-bench-<name>-…`), with room for
 * many Services (a /16 service range: the plane's default is a /24), and an admin client.
 */
export async function startBenchPlane(name: string): Promise<BenchPlane> {
  const dataDir = mkdtempSync(join(tmpdir(), `kgraph-bench-${name}-`));
  const plane = await startLocalControlPlane({
    dataDir,
    ephemeral: true,
    extraApiserverArgs: ['--service-cluster-ip-range=10.0.0.0/16'],
  });
  const kc = new KubeConfig();
  kc.loadFromFile(plane.kubeconfig);
  const admin = new RestClient(kc);
  return {
    plane,
    kc,
    admin,
    stop: async () => {
      admin.close();
      await plane.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * `kgraph controller --no-graphs` as its own process from a checkout's compiled dist/ (`root`, default
 * this one), with node flags before bin/kgraph.js, metrics and health on `port`, warn-level logs.
 */
export function spawnRgdController(opts: {
  kubeconfig: string;
  port: number;
  concurrency: number;
  nodeArgs?: readonly string[];
  root?: string;
}): ChildProcess {
  return spawn(
    process.execPath,
    [
      ...(opts.nodeArgs ?? []),
      join(opts.root ?? join(import.meta.dirname, '..'), 'bin', 'kgraph.js'),
      'controller',
      '--kubeconfig',
      opts.kubeconfig,
      '--no-graphs',
      '--no-install-crd',
      '--rgd-concurrency',
      String(opts.concurrency),
      '--metrics-addr',
      `127.0.0.1:${opts.port}`,
      '--health-addr',
      `127.0.0.1:${opts.port}`,
      '--log-level',
      'warn',
    ],
    // dist/, as a user runs it, never the sources through tsx.
    { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, KGRAPH_SOURCES: '' } },
  );
}

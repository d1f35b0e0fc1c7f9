/**
 * `kgraph controller` logs: readable lines on a terminal, JSON lines otherwise,
 * `--log-format` to choose. The real binary against the shared control plane; `script` gives it a
 * terminal.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../support/controllerProcess.ts';
import { sharedControlPlane } from '../../support/controlPlane.ts';
import { eventually, testNamespace } from '../../support/kube.ts';
import { ensureCrd } from '../graph/support.ts';

describe('controller logs', () => {
  let kubeconfig: string;
  let ns: string;
  const started: ChildProcess[] = [];

  before(async () => {
    await ensureCrd();
    kubeconfig = (await sharedControlPlane()).kubeconfigPath;
    ns = await testNamespace('logs');
  });
  after(() => {
    for (const p of started) if (p.pid !== undefined && p.exitCode === null) p.kill('SIGTERM');
  });

  /** Runs the controller (on a terminal when `tty`) until its output matches `until`; returns the output. */
  async function run(
    tty: boolean,
    extra: string[],
    until: RegExp,
    probe?: (port: number) => Promise<void>,
  ): Promise<string> {
    const port = await freePort();
    const args = [
      'bin/kgraph.js',
      'controller',
      '--kubeconfig',
      kubeconfig,
      '--namespace',
      ns,
      '--no-rgds',
      '--no-install-crd',
      '--metrics-addr',
      `127.0.0.1:${port}`,
      '--health-addr',
      `127.0.0.1:${port}`,
      ...extra,
    ];
    const env = { ...process.env, NO_COLOR: '1' };
    const quoted = [process.execPath, ...args].map((a) => `'${a}'`).join(' ');
    // `exec`: the controller replaces the shell, so SIGTERM to script's child reaches it.
    const proc = tty
      ? spawn('script', ['-qefc', `exec ${quoted}`, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] })
      : spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    started.push(proc);
    let out = '';
    proc.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
    });
    proc.stderr?.on('data', (b: Buffer) => {
      out += b.toString();
    });
    await eventually(
      `controller output matching ${until}`,
      async () => (until.test(out) ? true : undefined),
      60_000,
    );
    await probe?.(port);
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGTERM');
    await exited;
    return out;
  }

  it('on a terminal: readable lines (time, level, message, fields), no JSON', async () => {
    const out = await run(true, [], /controller started/);
    const line = out.split(/\r?\n/).find((l) => l.includes('controller started')) ?? '';
    assert.match(line, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: controller started \{/);
    assert.match(line, new RegExp(`"namespaces":\\["${ns}"\\]`));
    assert.doesNotMatch(out, /^\{"level":/m);
  });

  it("serves /metrics through prom-client: the controller's and the process/runtime metrics", async () => {
    let text = '';
    await run(false, [], /controller started/, async (port) => {
      text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    });
    assert.match(text, /^kgraph_api_requests_total\{verb="list"\} \d+$/m);
    assert.match(text, /^# TYPE kgraph_reconcile_duration_seconds histogram$/m);
    assert.match(text, /^process_cpu_seconds_total \d/m);
    assert.match(text, /^nodejs_eventloop_lag_seconds \d/m);
  });

  it('to a pipe: JSON lines; --log-format text and json override the choice', async () => {
    const piped = await run(false, [], /controller started/);
    const record = piped
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string; name: string })
      .find((r) => r.msg === 'controller started');
    assert.equal(record?.level, 30);
    assert.equal(record?.name, 'kgraph-controller');
    assert.match(
      await run(false, ['--log-format', 'text'], /controller started/),
      /\] INFO: controller started/,
    );
    assert.match(
      await run(true, ['--log-format', 'json'], /controller started/),
      /\{"level":30,.*"msg":"controller started"\}/,
    );
  });
});

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the generated YAML holds kgraph ${…} syntax
/**
 * Language server latency on a 50-node RGD: an edit to diagnostics published (goal < 50 ms) and a
 * completion request to its answer (goal < 20 ms), measured as an editor sees them, over stdio against a
 * spawned `kgraph lsp` (debounce 0, so the figure is the server's work plus the transport), and
 * in-process (the compile alone, the completion alone).
 * Run: node --import tsx bench/lsp.bench.ts [--write]
 */
import { analyse } from '../src/lsp/analysis.ts';
import { complete } from '../src/lsp/completion.ts';
import { SchemaSet } from '../src/lsp/schemas.ts';
import { linesOf } from '../src/lsp/yamlPath.ts';
import { fileUri, positionOf, startLsp } from '../test/support/lspClient.ts';
import { generateRgd } from './lspRgd.ts';
import { loadAverage, measuredBy, median, writeReadmeSection } from './support.ts';

const ROUNDS = 40;
const WARMUP = 15;
const text = generateRgd(50);
const completionAt = positionOf(text, '${deploy1.spec.selector', 18);

// In-process: the compile of each edit, and a completion.
const schemas = new SchemaSet();
const compileMs: number[] = [];
const completeMs: number[] = [];
for (let i = 0; i < ROUNDS + WARMUP; i++) {
  const edited = text.replace('replicas: integer | default=2', `replicas: integer | default=${i}`);
  const t0 = performance.now();
  const a = analyse('bench.yaml', edited, schemas);
  const t1 = performance.now();
  if (a.diagnostics.some((d) => d.severity === 'error')) throw new Error(JSON.stringify(a.diagnostics[0]));
  const lines = linesOf(edited);
  const offset =
    lines.slice(0, completionAt.line).reduce((n, l) => n + l.length + 1, 0) + completionAt.character;
  const t2 = performance.now();
  const items = complete(
    { analysis: a, parsed: a, schemas, lines },
    offset,
    completionAt.line,
    completionAt.character,
  );
  const t3 = performance.now();
  if (!items.some((x) => x.label === 'replicas')) throw new Error('completion misses replicas');
  if (i >= WARMUP) {
    compileMs.push(t1 - t0);
    completeMs.push(t3 - t2);
  }
}

// Over stdio, as an editor sees it.
const lsp = startLsp(['--debounce', '0']);
await lsp.initialize();
const uri = fileUri('bench/lsp-bench.yaml');
const opened = lsp.diagnostics(uri, 1);
lsp.open(uri, text, 1);
await opened;
const editMs: number[] = [];
const requestMs: number[] = [];
for (let i = 0; i < ROUNDS + WARMUP; i++) {
  const v = i + 2;
  const edited = text.replace('replicas: integer | default=2', `replicas: integer | default=${i}`);
  const published = lsp.diagnostics(uri, v);
  const t0 = performance.now();
  lsp.change(uri, edited, v);
  await published;
  const t1 = performance.now();
  await lsp.connection.sendRequest('textDocument/completion', {
    textDocument: { uri },
    position: completionAt,
  });
  const t2 = performance.now();
  if (i >= WARMUP) {
    editMs.push(t1 - t0);
    requestMs.push(t2 - t1);
  }
}
const code = await lsp.stop();
if (code !== 0) throw new Error(`kgraph lsp exited ${code}`);

const f = (x: number) => x.toFixed(1);
const section = `## Language server

A 50-resource RGD (${text.split('\n').length} lines; ConfigMaps, Deployments and Services, each reading the previous one and the instance's spec), ${ROUNDS} edits, medians. Over stdio: \`kgraph lsp --debounce 0\` spawned with the sources through tsx, driven by vscode-languageserver-protocol's connection; the time from sending \`didChange\` to receiving \`publishDiagnostics\`, and from a completion request after \`\${deploy1.spec.\` to its answer. In-process: the compile of the edited text (\`analyse\`: parse, compile, type-check against the bundle) and \`complete\` alone.

| | median | min | goal |
|---|---|---|---|
| edit → diagnostics, over stdio | ${f(median(editMs))} ms | ${f(Math.min(...editMs))} ms | < 50 ms |
| completion request → answer, over stdio | ${f(median(requestMs))} ms | ${f(Math.min(...requestMs))} ms | < 20 ms |
| compile of one edit, in-process | ${f(median(compileMs))} ms | ${f(Math.min(...compileMs))} ms | |
| completion, in-process | ${f(median(completeMs))} ms | ${f(Math.min(...completeMs))} ms | |

The machine is shared (the load average below is that of the run; the minimum shows the figure without contention). The editor's debounce (150 ms by default, \`--debounce\`) comes on top of the edit figure: it is the quiet time the server waits for before compiling, so that typing does not queue compiles.

${measuredBy('lsp.bench.ts', `load ${loadAverage()}`)}
`;
console.log(section);
if (process.argv.includes('--write')) writeReadmeSection(section);

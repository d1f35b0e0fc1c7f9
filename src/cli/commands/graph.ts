/**
 * `kgraph graph <file> [-o dot|mermaid|svg|json]`: draws the DAG of the Graph / RGD in a file.
 * Nested graphs are clusters, node kinds are shapes, edges are labelled with the fields that create
 * them. The drawing is produced even when the object has errors (diagnostics go to stderr, exit 1).
 */
import type { Command } from 'commander';
import { toDot, toJsonGraph, toMermaid, toSvg } from '../../graph/draw.ts';
import { formatDiagnostic } from '../../graph/format.ts';
import type { CompiledGraph } from '../../graph/model.ts';
import { validatePaths } from '../../graph/validate.ts';

const FORMATS = ['dot', 'mermaid', 'svg', 'json'] as const;
type Format = (typeof FORMATS)[number];

export function registerGraphCommand(program: Command): void {
  program
    .command('graph')
    .description('draw the dependency graph of a Graph or ResourceGraphDefinition')
    .argument('<file>', 'YAML file')
    .option('-o, --output <format>', `one of ${FORMATS.join(', ')}`, 'dot')
    .option('--name <name>', 'the object to draw when the file holds several')
    .option(
      '--crd <file>',
      'CRD file used as a schema source (repeatable)',
      (v: string, p: string[]) => [...p, v],
      [],
    )
    .action(async (file: string, opts: { output: string; name?: string; crd: string[] }) => {
      if (!(FORMATS as readonly string[]).includes(opts.output))
        throw new Error(`unknown output format '${opts.output}'`);
      const result = validatePaths([file], { crdFiles: opts.crd });
      for (const d of result.fileDiagnostics)
        process.stderr.write(formatDiagnostic(d, result.sources.get(file)));
      let picked = result.results.map((r, i) => ({ r, o: result.objects[i]! }));
      if (opts.name !== undefined) picked = picked.filter((p) => p.o.name === opts.name);
      const graphs = picked.filter((p) => p.r.graph !== undefined);
      // An unreadable file was said above (KG2007): nothing more to add.
      if (graphs.length === 0 && result.fileDiagnostics.some((d) => d.severity === 'error')) {
        process.exitCode = 1;
        return;
      }
      if (graphs.length === 0)
        throw new Error(
          `no Graph or ResourceGraphDefinition${opts.name ? ` named ${opts.name}` : ''} in ${file}`,
        );
      const format = opts.output as Format;
      if (graphs.length > 1 && (format === 'svg' || format === 'json') && opts.name === undefined) {
        throw new Error(`${file} holds ${graphs.length} objects; choose one with --name`);
      }
      for (const { o } of graphs) {
        for (const d of o.diagnostics) process.stderr.write(formatDiagnostic(d, result.sources.get(o.file)));
      }
      const render = async (g: CompiledGraph): Promise<string> => {
        switch (format) {
          case 'dot':
            return toDot(g, { legend: true });
          case 'mermaid':
            return toMermaid(g);
          case 'json':
            return toJsonGraph(g);
          case 'svg':
            return toSvg(g, { legend: true });
        }
      };
      for (const { r } of graphs) process.stdout.write(await render(r.graph!));
      process.exitCode =
        graphs.every((g) => g.o.accepted) && !result.fileDiagnostics.some((d) => d.severity === 'error')
          ? 0
          : 1;
    });
}

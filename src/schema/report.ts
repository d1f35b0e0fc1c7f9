/**
 * Collects schema-layer diagnostics with their field paths. Callers that parsed YAML with positions
 * pass `locate` so every diagnostic also carries file:line:column.
 */
import type { Diagnostic, SourceLocation } from '../diag/diagnostic.ts';

export type Locate = (path: string) => SourceLocation | undefined;

export class DiagnosticSink {
  readonly diagnostics: Diagnostic[] = [];
  constructor(private readonly locate?: Locate) {}

  error(code: string, path: string, message: string, hint?: string): void {
    this.push('error', code, path, message, hint);
  }

  warning(code: string, path: string, message: string, hint?: string): void {
    this.push('warning', code, path, message, hint);
  }

  get hasErrors(): boolean {
    return this.diagnostics.some((d) => d.severity === 'error');
  }

  private push(
    severity: Diagnostic['severity'],
    code: string,
    path: string,
    message: string,
    hint?: string,
  ): void {
    const d: Diagnostic = { severity, code, message, path };
    const location = this.locate?.(path);
    if (location) d.location = location;
    if (hint !== undefined) d.hint = hint;
    this.diagnostics.push(d);
  }
}

/** `a.b` + `c` → `a.b.c`; keys that are not identifiers are bracket-quoted. */
export function childPath(parent: string, key: string): string {
  const segment = /^[A-Za-z_$][\w$-]*$/.test(key) ? key : `[${JSON.stringify(key)}]`;
  if (parent === '') return segment;
  return segment.startsWith('[') ? `${parent}${segment}` : `${parent}.${segment}`;
}

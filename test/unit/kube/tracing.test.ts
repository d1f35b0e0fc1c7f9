/**
 * Tracing is off unless asked for, and then only is the OpenTelemetry SDK loaded (docs/observability.md):
 * which settings turn it on, that spans are a no-op when off, and that no module but
 * kube/tracing/otel.ts (imported dynamically) names the SDK.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { requestSpan, tracingEndpoint, tracingOn, withSpan } from '../../../src/kube/tracing/tracing.ts';

const root = resolve(import.meta.dirname, '../../..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('tracing settings', () => {
  it('is on for a flag or the standard variables, off otherwise or when disabled', () => {
    assert.equal(tracingEndpoint({}, {}), undefined);
    assert.equal(tracingEndpoint({ endpoint: 'http://c:4317' }, {}), 'http://c:4317');
    assert.equal(tracingEndpoint({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4317' }), 'http://a:4317');
    assert.equal(
      tracingEndpoint(
        {},
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4317', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:4317' },
      ),
      'http://t:4317',
    );
    assert.equal(tracingEndpoint({}, { OTEL_TRACES_EXPORTER: 'otlp' }), 'http://localhost:4317');
    assert.equal(
      tracingEndpoint({ endpoint: 'http://c:4317' }, { OTEL_SDK_DISABLED: 'true' }),
      undefined,
      'OTEL_SDK_DISABLED wins',
    );
  });

  it('off: a span is the function itself, requests get none', async () => {
    assert.equal(tracingOn(), false);
    const got = await withSpan('x', {}, async (span) => span);
    assert.equal(got, undefined);
    assert.equal(requestSpan('get', 'GET', '/api/v1'), undefined);
  });

  it('only kube/tracing/otel.ts names the SDK, and only tracing.ts imports it (dynamically)', () => {
    const sdk = files(join(root, 'src'))
      .filter((f) => /from '@opentelemetry\//.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    assert.deepEqual(sdk, ['src/kube/tracing/otel.ts']);
    const importers = files(join(root, 'src'))
      .filter((f) => /otel\.ts'/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    assert.deepEqual(importers, ['src/kube/tracing/tracing.ts']);
    assert.match(
      readFileSync(join(root, 'src/kube/tracing/tracing.ts'), 'utf8'),
      /await import\('\.\/otel\.ts'\)/,
    );
  });
});

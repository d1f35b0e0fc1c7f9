import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { drift, valueDocs, valuesSchema } from '../../../scripts/chart.ts';

describe('charts/kgraph', () => {
  it('crds/, values.schema.json and README.md are what scripts/chart.ts writes (run it after an edit)', () => {
    assert.deepEqual(drift(), []);
  });

  it('the chart and the controller carry one version', () => {
    const chart = parse(readFileSync('charts/kgraph/Chart.yaml', 'utf8')) as {
      version: string;
      appVersion: string;
    };
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    assert.equal(chart.appVersion, pkg.version);
    assert.equal(chart.version, pkg.version);
  });

  it('a value without a `# --` description is refused', () => {
    assert.throws(() => valueDocs('a: 1\n'), /a has no '# --' description/);
  });

  it('a map value must be declared free-form, so a typo in a fixed key stays an error', () => {
    const docs = valueDocs('image:\n  # -- y\n  pullPolicy: IfNotPresent\n');
    const schema = valuesSchema(docs) as { properties: { image: { additionalProperties: boolean } } };
    assert.equal(schema.properties.image.additionalProperties, false);
    assert.throws(() => valuesSchema(valueDocs('# -- a map\nsomething: {}\n')), /list it in FREE_FORM/);
  });
});

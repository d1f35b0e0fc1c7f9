import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { compileStatusTypes } from '../../../src/cli/commands/crd.ts';
import { generateCrd } from '../../../src/schema/crd/generate.ts';

/** The first version of the CRD generated for the RGD in `file`, and its status properties. */
function generated(file: string): { version: Record<string, unknown>; status: Record<string, unknown> } {
  const rgd = parse(readFileSync(file, 'utf8')) as { metadata: { name: string } };
  const types = compileStatusTypes(file).get(rgd.metadata.name);
  assert.ok(types && types.errors === 0);
  const { crd } = generateCrd(rgd, { statusTypes: types.fields });
  const version = (crd as { spec: { versions: Record<string, unknown>[] } }).spec.versions[0]!;
  const status = (
    version.schema as { openAPIV3Schema: { properties: { status: { properties: Record<string, unknown> } } } }
  ).openAPIV3Schema.properties.status.properties;
  return { version, status };
}

/**
 * Item 11: the CRD generated for an RGD matches kro's: an int status field is `integer`
 * without a format (kro infers no format), and the default printer columns carry no `priority: 0`
 * (kro's types omit a zero priority).
 */
test('generated CRD: int status without format, default printer columns without priority', () => {
  const { version, status } = generated(join(import.meta.dirname, 'compat/04-custom-conditions.yaml'));
  assert.deepEqual(status.readyReplicas, { type: 'integer' });
  const columns = version.additionalPrinterColumns as Record<string, unknown>[];
  assert.deepEqual(
    columns.map((c) => c.name),
    ['State', 'Ready', 'Age'],
  );
  for (const c of columns) assert.equal(Object.hasOwn(c, 'priority'), false, `${c.name} has no priority`);
});

/**
 * Item 11, list-of-object status fields: a Deployment's conditions, a Service port and scalar lists are
 * typed from the declared types, as kro's generator does, instead of untyped preserve-unknown fields.
 * The expected status is written in compat-crd/11-status-types.kro-status.yaml.
 */
test('generated CRD: object and list-of-object status fields typed as kro types them', () => {
  const dir = join(import.meta.dirname, 'compat-crd');
  const { status } = generated(join(dir, '11-status-types.yaml'));
  const expected = parse(readFileSync(join(dir, '11-status-types.kro-status.yaml'), 'utf8'));
  assert.deepEqual(JSON.parse(JSON.stringify(status)), expected);
  // Property order as kro writes it (sorted), so the CRDs compare equal as text too.
  const rollout = status.rollout as { items: { properties: Record<string, unknown> } };
  assert.deepEqual(Object.keys(rollout.items.properties), [
    'lastTransitionTime',
    'lastUpdateTime',
    'message',
    'reason',
    'status',
    'type',
  ]);
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import YAML from 'yaml';
import { isAmbiguousPlainScalar, writeYaml, writeYamlDocuments } from '../../../src/yaml/writeYaml.ts';

/** Strings a YAML 1.1 reader (Kubernetes: sigs.k8s.io/yaml over go-yaml) takes for another type. */
const yaml11Lookalikes = [
  ...['yes', 'Yes', 'YES', 'no', 'No', 'NO', 'on', 'On', 'ON', 'off', 'Off', 'OFF'],
  ...['y', 'Y', 'n', 'N', 'true', 'False', 'null', 'Null', '~', ''],
  ...['0755', '012', '0x1F', '0b101', '1_000', '+12', '1e3', '1.5', '.inf', '-.Inf', '.NaN'],
  ...['1:20', '190:20:30', '12:30:00', '2001-12-14', '2001-12-14T21:59:43.10-05:00'],
  ...['<<', '='],
];

describe('writeYaml: strings a YAML 1.1 or 1.2 reader would retype are quoted', () => {
  it('every YAML 1.1 look-alike, as a value and as a key, reads back as the same string in YAML 1.1 and 1.2', () => {
    for (const s of yaml11Lookalikes) {
      const text = writeYaml({ data: { [s]: s }, list: [s] });
      for (const version of ['1.1', '1.2'] as const) {
        const back = YAML.parse(text, { version }) as { data: Record<string, unknown>; list: unknown[] };
        assert.deepEqual(
          Object.keys(back.data),
          [s],
          `key ${JSON.stringify(s)} in YAML ${version}:\n${text}`,
        );
        assert.equal(back.data[s], s, `value ${JSON.stringify(s)} in YAML ${version}:\n${text}`);
        assert.deepEqual(back.list, [s]);
      }
      assert.ok(isAmbiguousPlainScalar(s), s);
    }
  });

  it('the unquoted forms really are retyped by a YAML 1.1 reader (what the quoting protects against)', () => {
    for (const s of ['yes', 'NO', 'on', 'off', 'y', '~', '0755', '1:20']) {
      assert.notEqual(typeof YAML.parse(`v: ${s}\n`, { version: '1.1' }).v, 'string', s);
    }
  });

  it('ordinary strings stay plain, numbers and booleans stay typed, multi-line strings use a block', () => {
    const text = writeYaml({ name: 'web', image: 'nginx:1.27', replicas: 3, ok: true, script: 'a\nb\n' });
    assert.equal(text, 'name: web\nimage: nginx:1.27\nreplicas: 3\nok: true\nscript: |\n  a\n  b\n');
  });

  it('repeated objects are written out (no anchors) and long lines are not folded', () => {
    const shared = { a: 1 };
    const long = 'x '.repeat(100).trim();
    const text = writeYaml({ one: shared, two: shared, long });
    assert.doesNotMatch(text, /[&*]/);
    assert.equal(text.split('\n').length, 6);
  });

  it('writeYamlDocuments separates documents with ---', () => {
    assert.equal(writeYamlDocuments([{ a: 'on' }, { b: 1 }]), 'a: "on"\n---\nb: 1\n');
  });
});

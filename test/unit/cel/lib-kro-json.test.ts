import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertCelError, assertCheckFails, celEval } from './lib-support.ts';

// kro pkg/cel/library/json.go; the first goldens are kro's json_test.go cases
// (kubernetes-sigs/kro pkg/cel/library/json_test.go), the rest follow Go's encoding/json.
describe('kro json library', () => {
  it('unmarshal decodes JSON, numbers as doubles (kro json_test.go)', () => {
    assert.deepEqual(celEval(`json.unmarshal('{"name": "test", "count": 42}')`), { name: 'test', count: 42 });
    assert.deepEqual(celEval(`json.unmarshal('[1, 2, 3]')`), [1, 2, 3]);
    assert.equal(celEval(`json.unmarshal('"hello"')`), 'hello');
    assert.equal(celEval(`json.unmarshal('123')`), 123);
    assert.equal(celEval(`json.unmarshal('true')`), true);
    assert.equal(celEval(`json.unmarshal('null') == null`), true);
    assert.equal(celEval(`json.unmarshal('{"nested": {"value": "deep"}}').nested.value`), 'deep');
    assert.equal(celEval(`json.unmarshal('[1, 2, 3]')[1]`), 2);
    assert.equal(celEval(`json.unmarshal('[1, 2, 3]')[1] == 2.0`), true);
  });

  it('unmarshal errors (kro json_test.go)', () => {
    assertCelError(`json.unmarshal('{"invalid"}')`, 'json.unmarshal failed to parse JSON');
    assertCelError(`json.unmarshal('')`, 'json.unmarshal failed to parse JSON');
    assertCelError(`json.unmarshal('1e400')`, 'json.unmarshal failed to parse JSON');
    assertCheckFails('json.unmarshal(123)');
  });

  it('marshal matches Go encoding/json (kro json_test.go)', () => {
    assert.equal(celEval('json.marshal({"name": "test", "count": 42})'), '{"count":42,"name":"test"}');
    assert.equal(celEval('json.marshal([1, 2, 3])'), '[1,2,3]');
    assert.equal(celEval('json.marshal("hello")'), '"hello"');
    assert.equal(celEval('json.marshal(42)'), '42');
    assert.equal(celEval('json.marshal(true)'), 'true');
    assert.equal(celEval('json.marshal(null)'), 'null');
    assert.equal(celEval('json.marshal({"outer": {"inner": "value"}})'), '{"outer":{"inner":"value"}}');
    assert.equal(
      celEval(`json.marshal(json.unmarshal('{"name":"test","count":42}'))`),
      '{"count":42,"name":"test"}',
    );
    assert.equal(celEval('json.marshal(b"hello")'), '"aGVsbG8="');
    assert.equal(celEval('json.marshal(18446744073709551615u)'), '18446744073709551615');
  });

  it('marshal escapes and formats numbers like Go', () => {
    assert.equal(celEval('json.marshal("<a & b>")'), '"\\u003ca \\u0026 b\\u003e"');
    assert.equal(celEval('json.marshal("tab\\tnl\\n\\u0001\\u2028")'), '"tab\\tnl\\n\\u0001\\u2028"');
    assert.equal(celEval('json.marshal("\\b\\f")'), '"\\b\\f"');
    assert.equal(
      celEval('json.marshal([1.5, 2.0, 1e21, 1e20, 0.000001, 1.5e-7, -0.0])'),
      '[1.5,2,1e+21,100000000000000000000,0.000001,1.5e-7,-0]',
    );
    assert.equal(celEval('json.marshal(9223372036854775807)'), '9223372036854775807');
    assert.equal(celEval('json.marshal({"b": 1, "a": 2, "B": 3})'), '{"B":3,"a":2,"b":1}');
    assertCelError('json.marshal(double("NaN"))', 'json: unsupported value: NaN');
  });

  it('marshal renders durations, timestamps and optionals like kro', () => {
    assert.equal(celEval('json.marshal(duration("90m"))'), '"1h30m0s"');
    assert.equal(celEval('json.marshal(duration("1.5s"))'), '"1.5s"');
    assert.equal(celEval('json.marshal(duration("0s"))'), '"0s"');
    assert.equal(celEval('json.marshal(duration("1500us"))'), '"1.5ms"');
    assert.equal(celEval('json.marshal(timestamp("2020-01-02T03:04:05.678Z"))'), '"2020-01-02T03:04:05Z"');
    assert.equal(celEval('json.marshal(optional.none())'), 'null');
    assert.equal(celEval('json.marshal([optional.of(1)])'), '[1]');
    assertCelError('json.marshal(quantity("1"))', 'json.marshal failed to convert value: unsupported type');
  });
});

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's scenarios for `${…}` supplied as instance data (kro instance_expression_isolation_test.go),
 * ported: instance values are data, never expressions — a literal `${…}` in a spec field reaches the
 * resource unchanged, one in the instance's annotations does not disturb the reconcile, and a value
 * naming a resource of the definition does not read it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  cmData,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from '../rgd/support.ts';

describe('kro conformance: expressions in instance data stay data', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-iso');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  it('carries a literal ${...} in an instance spec field through to a managed resource', async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'test-instance-literal-expr',
        { kind: 'TestInstanceLiteralExpr', spec: { name: 'string', note: 'string' } },
        [{ id: 'cm', template: cm('${schema.spec.name}-cm', { note: '${schema.spec.note}' }) }],
      ),
    );
    await waitRgd(client, 'test-instance-literal-expr', 'Ready', 'True');
    const literal = 'echo ${HOME} && echo ${NOT_A_RESOURCE.field}';
    await applyInstance(
      client,
      instance(f, 'TestInstanceLiteralExpr', 'literal-expr', { name: 'literal-expr', note: literal }),
    );
    await waitState(client, f, 'TestInstanceLiteralExpr', 'literal-expr', 'ACTIVE');
    assert.deepEqual(await cmData(client, f.ns, 'literal-expr-cm'), { note: literal });
  });

  it('reconciles an instance whose annotations contain a literal ${...}', async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'test-instance-annotation-expr',
        { kind: 'TestInstanceAnnotationExpr', spec: { name: 'string' } },
        [{ id: 'cm', template: cm('${schema.spec.name}-cm', { name: '${schema.spec.name}' }) }],
      ),
    );
    await waitRgd(client, 'test-instance-annotation-expr', 'Ready', 'True');
    await applyInstance(
      client,
      instance(
        f,
        'TestInstanceAnnotationExpr',
        'annotation-expr',
        { name: 'annotation-expr' },
        { annotations: { 'example.com/command': 'run ${SOME_VAR}' } },
      ),
    );
    await waitState(client, f, 'TestInstanceAnnotationExpr', 'annotation-expr', 'ACTIVE');
    assert.deepEqual(await cmData(client, f.ns, 'annotation-expr-cm'), { name: 'annotation-expr' });
  });

  it("does not resolve an instance value that names one of the definition's resources", async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'test-instance-scope-isolation',
        { kind: 'TestInstanceScopeIsolation', spec: { name: 'string', note: 'string' } },
        [
          {
            id: 'secretCarrier',
            template: cm('${schema.spec.name}-carrier', { token: 'carrier-token-value' }),
          },
          { id: 'echo', template: cm('${schema.spec.name}-echo', { note: '${schema.spec.note}' }) },
        ],
      ),
    );
    await waitRgd(client, 'test-instance-scope-isolation', 'Ready', 'True');
    const literal = '${secretCarrier.data.token}';
    await applyInstance(
      client,
      instance(f, 'TestInstanceScopeIsolation', 'scope-isolation', {
        name: 'scope-isolation',
        note: literal,
      }),
    );
    await waitState(client, f, 'TestInstanceScopeIsolation', 'scope-isolation', 'ACTIVE');
    const data = await cmData(client, f.ns, 'scope-isolation-echo');
    assert.deepEqual(data, { note: literal });
    assert.notEqual(data?.note, 'carrier-token-value');
  });
});

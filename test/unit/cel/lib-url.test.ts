import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertCelError, celEval } from './lib-support.ts';

// k8s.io/apiserver/pkg/cel/library/urls.go; expected values are Go net/url results
// (url.ParseRequestURI to validate, url.Parse for the getters), including the library's doc examples.
describe('URL library', () => {
  it('getScheme, getHost, getHostname, getPort', () => {
    assert.equal(celEval('url("https://example.com:80/").getScheme()'), 'https');
    assert.equal(celEval('url("HTTPS://example.com/").getScheme()'), 'https');
    assert.equal(celEval('url("https://example.com:80/").getHost()'), 'example.com:80');
    assert.equal(celEval('url("https://example.com:80/").getHostname()'), 'example.com');
    assert.equal(celEval('url("https://example.com:80/").getPort()'), '80');
    assert.equal(celEval('url("https://example.com/").getPort()'), '');
    assert.equal(celEval('url("https://[::1]:80/").getHost()'), '[::1]:80');
    assert.equal(celEval('url("https://[::1]:80/").getHostname()'), '::1');
    assert.equal(celEval('url("https://[::1]/").getHostname()'), '::1');
    assert.equal(celEval('url("https://user:pw@example.com/").getHost()'), 'example.com');
    assert.equal(celEval('url("https://Example.COM/").getHost()'), 'Example.COM');
  });

  it('absolute paths are URLs without scheme or host', () => {
    assert.equal(celEval('url("/absolute-path").getScheme()'), '');
    assert.equal(celEval('url("/absolute-path").getHost()'), '');
    assert.equal(celEval('url("/absolute-path").getEscapedPath()'), '/absolute-path');
  });

  it('getEscapedPath keeps valid escapes and escapes the rest', () => {
    assert.equal(celEval('url("https://example.com/path").getEscapedPath()'), '/path');
    assert.equal(celEval('url("https://example.com/with%20space/").getEscapedPath()'), '/with%20space/');
    assert.equal(celEval('url("https://example.com/a b").getEscapedPath()'), '/a%20b');
    assert.equal(celEval('url("https://example.com/%7Efoo").getEscapedPath()'), '/%7Efoo');
    assert.equal(celEval('url("https://example.com").getEscapedPath()'), '');
    assert.equal(celEval('url("https://example.com/p?q=1#frag").getEscapedPath()'), '/p');
  });

  it('getQuery parses the query like url.ParseQuery', () => {
    assert.deepEqual(celEval('url("https://example.com/path?k1=a&k2=b&k2=c").getQuery()'), {
      k1: ['a'],
      k2: ['b', 'c'],
    });
    assert.deepEqual(celEval('url("https://example.com/?a+b=c%20d&empty&&x=1;y=2").getQuery()'), {
      'a b': ['c d'],
      empty: [''],
    });
    assert.deepEqual(celEval('url("https://example.com/").getQuery()'), {});
    assert.equal(celEval('url("https://example.com/?k=v#frag").getQuery().k[0]'), 'v');
  });

  it('isURL and url() errors follow ParseRequestURI', () => {
    assert.equal(celEval('isURL("https://user:pass@example.com:80/path?query=val#fragment")'), true);
    assert.equal(celEval('isURL("/absolute-path")'), true);
    assert.equal(celEval('isURL("https://example.com/%E2%82%AC")'), true);
    assert.equal(celEval('isURL("mailto:someone@example.com")'), true);
    assert.equal(celEval('isURL("../relative-path")'), false);
    assert.equal(celEval('isURL("example.com")'), false);
    assert.equal(celEval('isURL("")'), false);
    assert.equal(celEval('isURL("https://a b.com/")'), false);
    assert.equal(celEval('isURL("https://example.com:8x/")'), false);
    assert.equal(celEval('isURL("https://example.com/%zz")'), false);
    assert.equal(celEval('isURL("https://exa\\tmple.com/")'), false);
    assertCelError(
      'url("../relative-path")',
      'URL parse error during conversion from string: parse "../relative-path": invalid URI for request',
    );
    assertCelError('url("https://[::1/")', "missing ']' in host");
  });

  it('URL values compare and carry the Kubernetes type name', () => {
    assert.equal(celEval('url("https://a.com/x") == url("https://a.com/x")'), true);
    assert.equal(celEval('url("https://a.com/x") == url("https://a.com/y")'), false);
    assert.equal((celEval('type(url("https://a.com"))') as { name: string }).name, 'kubernetes.URL');
  });

  it('opaque URLs have a scheme and no host', () => {
    assert.equal(celEval('url("mailto:someone@example.com").getScheme()'), 'mailto');
    assert.equal(celEval('url("mailto:someone@example.com").getHost()'), '');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertCelError, assertCheckFails, celEval } from './lib-support.ts';

// k8s.io/apiserver/pkg/cel/library/ip.go and cidr.go; expectations follow Go net/netip.
describe('IP library', () => {
  it('parses strictly and rejects zones and IPv4-mapped addresses', () => {
    assert.equal(celEval('isIP("192.168.0.1")'), true);
    assert.equal(celEval('isIP("2001:db8::68")'), true);
    assert.equal(celEval('isIP("010.1.1.1")'), false);
    assert.equal(celEval('isIP("1.2.3")'), false);
    assert.equal(celEval('isIP("256.1.1.1")'), false);
    assert.equal(celEval('isIP("0x1.1.1.1")'), false);
    assert.equal(celEval('isIP("fe80::1%eth0")'), false);
    assert.equal(celEval('isIP("::ffff:192.168.0.1")'), false);
    assert.equal(celEval('isIP("1:2:3:4:5:6:7:8:9")'), false);
    assert.equal(celEval('isIP("192.168.0.1/24")'), false);
    assertCelError('ip("::ffff:1.2.3.4")', 'IPv4-mapped IPv6 address');
    assertCelError('ip("fe80::1%eth0")', 'with zone value is not allowed');
    assertCelError('ip("nope")', 'parse error during conversion from string');
  });

  it('string() and ip.isCanonical use RFC 5952 text', () => {
    assert.equal(celEval('string(ip("2001:DB8:0:0:0::1"))'), '2001:db8::1');
    assert.equal(celEval('string(ip("::1.2.3.4"))'), '::102:304');
    assert.equal(celEval('string(ip("2001:db8:0:0:1:0:0:1"))'), '2001:db8::1:0:0:1');
    assert.equal(celEval('string(ip("10.0.0.1"))'), '10.0.0.1');
    assert.equal(celEval('ip.isCanonical("127.0.0.1")'), true);
    assert.equal(celEval('ip.isCanonical("2001:db8::1")'), true);
    assert.equal(celEval('ip.isCanonical("2001:DB8::1")'), false);
    assert.equal(celEval('ip.isCanonical("2001:db8:0:0:0:0:0:1")'), false);
    assertCelError('ip.isCanonical("bad")', 'parse error');
  });

  it('family and address classes', () => {
    assert.equal(celEval('ip("192.168.0.1").family()'), 4n);
    assert.equal(celEval('ip("::1").family()'), 6n);
    assert.equal(celEval('ip("0.0.0.0").isUnspecified()'), true);
    assert.equal(celEval('ip("::").isUnspecified()'), true);
    assert.equal(celEval('ip("127.0.0.1").isUnspecified()'), false);
    assert.equal(celEval('ip("127.255.0.1").isLoopback()'), true);
    assert.equal(celEval('ip("::1").isLoopback()'), true);
    assert.equal(celEval('ip("::2").isLoopback()'), false);
    assert.equal(celEval('ip("224.0.0.1").isLinkLocalMulticast()'), true);
    assert.equal(celEval('ip("224.0.1.1").isLinkLocalMulticast()'), false);
    assert.equal(celEval('ip("ff02::1").isLinkLocalMulticast()'), true);
    assert.equal(celEval('ip("ff05::1").isLinkLocalMulticast()'), false);
    assert.equal(celEval('ip("169.254.169.254").isLinkLocalUnicast()'), true);
    assert.equal(celEval('ip("192.168.0.1").isLinkLocalUnicast()'), false);
    assert.equal(celEval('ip("fe80::1").isLinkLocalUnicast()'), true);
    assert.equal(celEval('ip("192.168.0.1").isGlobalUnicast()'), true);
    assert.equal(celEval('ip("255.255.255.255").isGlobalUnicast()'), false);
    assert.equal(celEval('ip("224.0.0.1").isGlobalUnicast()'), false);
    assert.equal(celEval('ip("2001:db8::1").isGlobalUnicast()'), true);
    assert.equal(celEval('ip("ff00::1").isGlobalUnicast()'), false);
    assert.equal(celEval('ip("::1") == ip("0:0::1")'), true);
    assertCheckFails('ip("::1").family("x")');
  });
});

describe('CIDR library', () => {
  it('parses prefixes strictly', () => {
    assert.equal(celEval('isCIDR("192.168.0.0/24")'), true);
    assert.equal(celEval('isCIDR("192.168.0.1/24")'), true);
    assert.equal(celEval('isCIDR("2001:db8::/32")'), true);
    assert.equal(celEval('isCIDR("192.168.0.0")'), false);
    assert.equal(celEval('isCIDR("192.168.0.0/33")'), false);
    assert.equal(celEval('isCIDR("192.168.0.0/08")'), false);
    assert.equal(celEval('isCIDR("::ffff:1.2.3.4/120")'), false);
    assertCelError('cidr("10.0.0.0/x")', 'bad bits after slash');
  });

  it('ip, masked, prefixLength and string', () => {
    assert.equal(celEval('cidr("192.168.0.1/24").prefixLength()'), 24n);
    assert.equal(celEval('cidr("192.168.0.1/24").ip() == ip("192.168.0.1")'), true);
    assert.equal(celEval('string(cidr("192.168.0.1/24").masked())'), '192.168.0.0/24');
    assert.equal(celEval('string(cidr("2001:db8::1/32").masked())'), '2001:db8::/32');
    assert.equal(celEval('string(cidr("10.1.2.3/13").masked())'), '10.0.0.0/13');
    assert.equal(celEval('string(cidr("192.168.0.1/24"))'), '192.168.0.1/24');
    assert.equal(celEval('cidr("192.168.0.0/24") == cidr("192.168.0.0/24")'), true);
  });

  it('containsIP and containsCIDR, with strings or values', () => {
    assert.equal(celEval('cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))'), true);
    assert.equal(celEval('cidr("192.168.0.0/24").containsIP("192.168.1.1")'), false);
    assert.equal(celEval('cidr("::/0").containsIP("1.2.3.4")'), false);
    assert.equal(celEval('cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))'), true);
    assert.equal(celEval('cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23")'), false);
    assert.equal(celEval('cidr("192.168.0.0/24").containsCIDR("192.168.0.128/25")'), true);
    assert.equal(celEval('cidr("2001:db8::/32").containsCIDR("2001:db8::/48")'), true);
    assertCelError('cidr("10.0.0.0/8").containsIP("bad")', 'parse error');
  });
});

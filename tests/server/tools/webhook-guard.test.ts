import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, isGlobalAddress, type HostResolver } from '../../../src/server/tools/webhook-guard.js';

const publicResolver: HostResolver = async () => [
  { address: '93.184.215.14', family: 4 },
  { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
];
const accept = (url: string, resolver: HostResolver = publicResolver) =>
  expect(checkWebhookUrl(url, { resolver })).resolves.toBeUndefined();
const refuse = (url: string, reason: RegExp, resolver: HostResolver = publicResolver) =>
  expect(checkWebhookUrl(url, { resolver })).rejects.toMatchObject({
    status: 400,
    code: 'invalid_webhook_url',
    message: expect.stringMatching(reason),
  });

describe('webhook URL guard', () => {
  it('accepts public https endpoints: names resolving to global addresses, canonical public IP literals, ports', async () => {
    await accept('https://hooks.example.com/b2/events?x=1');
    await accept('https://93.184.215.14/hook');
    await accept('https://[2606:4700:4700::1111]:8443/hook');
    await accept('https://hooks.example.com./trailing-dot');
  });

  it('refuses other schemes, user info, unparsable and oddly written URLs', async () => {
    await refuse('http://hooks.example.com/x', /only https/);
    await refuse('ftp://hooks.example.com/x', /only https/);
    await refuse('https://user:pass@hooks.example.com/x', /user info/);
    await refuse('not a url', /not a valid URL/);
    await refuse('https:\\\\hooks.example.com\\x', /plainly/);
    await refuse('https://%68ooks.example.com/x', /percent-encoded/);
  });

  it('refuses localhost and every numeric encoding of an address', async () => {
    await refuse('https://localhost/x', /localhost/);
    await refuse('https://api.localhost./x', /localhost/);
    for (const encoded of [
      'https://2130706433/x',
      'https://0x7f000001/x',
      'https://0177.0.0.1/x',
      'https://127.1/x',
      'https://1571149582/x',
      'https://0x5d.0xb8.0xd7.0x0e/x',
      'https://93.184.215.014/x',
    ]) {
      await refuse(encoded, /four plain decimal numbers/);
    }
  });

  it('refuses IPv6 zone ids and non-global IPv4 and IPv6 literals', async () => {
    await refuse('https://[fe80::1%25eth0]/x', /valid URL|zone id/);
    for (const ip of [
      '0.1.2.3',
      '10.0.0.1',
      '100.64.0.1',
      '127.0.0.1',
      '169.254.169.254',
      '172.16.5.4',
      '192.0.0.8',
      '192.0.2.1',
      '192.88.99.1',
      '192.168.1.1',
      '198.18.0.1',
      '198.51.100.7',
      '203.0.113.9',
      '224.0.0.1',
      '255.255.255.255',
    ]) {
      await refuse(`https://${ip}/x`, /IPv4 address is not globally routable/);
    }
    for (const ip of [
      '::127.0.0.1',
      '::a9fe:a9fe',
      '::ffff:0:a9fe:a9fe',
      '::ffff:a9fe:a9fe',
      '::ffff:0:7f00:1',
      '5f00::1',
      '64:ff9b::a9fe:a9fe',
      '2002:a9fe:a9fe::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '4000::1',
      'e000::1',
      '::',
      '::1',
      '::ffff:10.0.0.1',
      '64:ff9b::a00:1',
      '64:ff9b:1::1',
      '100::1',
      '2001:0:1::1',
      '2001:2::1',
      '2001:db8::1',
      '2002::1',
      '3fff::1',
      'fd00::1',
      'fe80::1',
      'fec0::1',
      'ff02::1',
    ]) {
      await refuse(`https://[${ip}]/x`, /IPv6 address is not globally routable/);
    }
  });

  it('resolves host names and refuses any that reach a non-global address, fail, or time out', async () => {
    await refuse('https://internal.example.com/x', /resolves to an address that is not globally routable/, async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.1.2.3', family: 4 },
    ]);
    await refuse('https://mapped.example.com/x', /not globally routable/, async () => [{ address: '::ffff:127.0.0.1', family: 6 }]);
    for (const address of ['::a9fe:a9fe', '::ffff:0:a9fe:a9fe', '5f00::1', '127.0.0.1', '169.254.169.254']) {
      await refuse('https://rebound.example.com/x', /resolves to an address that is not globally routable/, async () => [
        { address, family: address.includes(':') ? 6 : 4 },
      ]);
    }
    await refuse('https://nowhere.example.com/x', /does not resolve/, async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    });
    await refuse('https://empty.example.com/x', /does not resolve/, async () => []);
    const hanging: HostResolver = () => new Promise(() => undefined);
    const started = Date.now();
    await expect(checkWebhookUrl('https://slow.example.com/x', { resolver: hanging, timeoutMs: 50 })).rejects.toMatchObject({
      message: expect.stringMatching(/did not resolve within/),
    });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('never echoes the path or query of a refused URL (it may carry a token)', async () => {
    const error = await checkWebhookUrl('http://hooks.example.com/secret-path-token?sig=abc').catch((e: Error) => e);
    expect((error as Error).message).toContain('http://hooks.example.com/');
    expect((error as Error).message).not.toMatch(/secret-path-token|sig=abc/);
  });

  it('classifies addresses', () => {
    expect(isGlobalAddress('8.8.8.8')).toBe(true);
    expect(isGlobalAddress('2606:4700::1')).toBe(true);
    expect(isGlobalAddress('172.32.0.1')).toBe(true);
    expect(isGlobalAddress('172.31.255.255')).toBe(false);
    expect(isGlobalAddress('not-an-ip')).toBe(false);
  });
});

/**
 * The webhook URL guard's exact refusals (contract §2.7): each check's own message, ports on IP
 * literals, user info in either half, URLs that only contain `https://` later on, and the DNS
 * budget measured on fake timers (2 s by default, the configured one otherwise).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkWebhookUrl, DNS_TIMEOUT_MS, type HostResolver } from '../../../src/server/tools/webhook-guard.js';

const publicResolver: HostResolver = async () => [{ address: '93.184.215.14', family: 4 }];
const hanging: HostResolver = () => new Promise(() => undefined);

const refusal = async (url: string, options: Parameters<typeof checkWebhookUrl>[1] = { resolver: publicResolver }) => {
  const error = await checkWebhookUrl(url, options).then(
    () => undefined,
    (e: unknown) => e as { status: number; code: string; message: string },
  );
  if (!error) throw new Error(`${url} was accepted`);
  expect([error.status, error.code]).toEqual([400, 'invalid_webhook_url']);
  return error.message;
};

afterEach(() => {
  vi.useRealTimers();
});

describe('each refusal names the URL safely and gives its own reason', () => {
  const cases: Array<[url: string, message: string]> = [
    ['not a url', 'Webhook URL (unparsable) is not allowed: it is not a valid URL.'],
    ['http://hooks.example.com/x', 'Webhook URL http://hooks.example.com/… is not allowed: only https:// endpoints are accepted.'],
    ['https://user@hooks.example.com/x', 'Webhook URL https://hooks.example.com/… is not allowed: it must not contain user info.'],
    ['https://:pass@hooks.example.com/x', 'Webhook URL https://hooks.example.com/… is not allowed: it must not contain user info.'],
    ['https:hooks.example.com/x', 'Webhook URL https://hooks.example.com/… is not allowed: write it plainly as https://host/path.'],
    [
      'https:hooks.example.com/https://other.example.com/',
      'Webhook URL https://hooks.example.com/… is not allowed: write it plainly as https://host/path.',
    ],
    ['https://localhost/x', 'Webhook URL https://localhost/… is not allowed: localhost is not reachable from B2.'],
    ['https://a.b.localhost./x', 'Webhook URL https://a.b.localhost./… is not allowed: localhost is not reachable from B2.'],
    ['https://127.1/x', 'Webhook URL https://127.0.0.1/… is not allowed: IP addresses must be written as four plain decimal numbers.'],
    ['https://10.0.0.1:8443/x', 'Webhook URL https://10.0.0.1:8443/… is not allowed: the IPv4 address is not globally routable.'],
    ['https://[fd00::1]/x', 'Webhook URL https://[fd00::1]/… is not allowed: the IPv6 address is not globally routable.'],
  ];
  it.each(cases)('%s', async (url, message) => {
    expect(await refusal(url)).toBe(message);
  });

  it('names that do not resolve, resolve to nothing, or reach a private address get their own reasons', async () => {
    const failing: HostResolver = async () => {
      throw new Error('ENOTFOUND');
    };
    expect(await refusal('https://gone.example.com/x', { resolver: failing })).toBe(
      'Webhook URL https://gone.example.com/… is not allowed: its host name does not resolve.',
    );
    expect(await refusal('https://gone.example.com/x', { resolver: async () => [] })).toBe(
      'Webhook URL https://gone.example.com/… is not allowed: its host name does not resolve.',
    );
    expect(await refusal('https://in.example.com/x', { resolver: async () => [{ address: '192.168.0.1', family: 4 }] })).toBe(
      'Webhook URL https://in.example.com/… is not allowed: its host name resolves to an address that is not globally routable.',
    );
  });
});

describe('a port is not part of the host that is checked', () => {
  it('public IPv4 and IPv6 literals and host names with ports are accepted', async () => {
    await expect(checkWebhookUrl('https://93.184.215.14:8443/hook', { resolver: hanging })).resolves.toBeUndefined();
    await expect(checkWebhookUrl('https://[2606:4700:4700::1111]:8443/hook', { resolver: hanging })).resolves.toBeUndefined();
    await expect(checkWebhookUrl('https://hooks.example.com:8443/hook', { resolver: publicResolver })).resolves.toBeUndefined();
  });

  it('the name, not the name with its port, is what is resolved', async () => {
    const asked: string[] = [];
    await checkWebhookUrl('https://Hooks.Example.com.:8443/hook', {
      resolver: async (name) => (asked.push(name), [{ address: '8.8.8.8', family: 4 }]),
    });
    expect(asked).toEqual(['hooks.example.com']);
  });
});

describe('the DNS budget', () => {
  it('defaults to 2 s: still waiting just before, refused at 2 s with the budget in the message', async () => {
    vi.useFakeTimers();
    expect(DNS_TIMEOUT_MS).toBe(2_000);
    let settled: string | undefined;
    const pending = checkWebhookUrl('https://slow.example.com/x', { resolver: hanging }).catch((e: Error) => {
      settled = e.message;
    });
    await vi.advanceTimersByTimeAsync(1_999);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(settled).toBe('Webhook URL https://slow.example.com/… is not allowed: its host name did not resolve within 2 s.');
  });

  it('a configured budget is used and reported in seconds', async () => {
    vi.useFakeTimers();
    const pending = refusal('https://slow.example.com/x', { resolver: hanging, timeoutMs: 250 });
    await vi.advanceTimersByTimeAsync(250);
    expect(await pending).toBe('Webhook URL https://slow.example.com/… is not allowed: its host name did not resolve within 0.25 s.');
  });

  it('no timer is left behind once the name has resolved', async () => {
    vi.useFakeTimers();
    await checkWebhookUrl('https://hooks.example.com/x', { resolver: publicResolver });
    expect(vi.getTimerCount()).toBe(0);
  });
});

// callback_url at submission, resolving through a real DNS server on loopback (test-dns-server.ts).
import { Resolver } from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressPolicy } from './address-policy.js';
import { checkCallbackUrl } from './callback-url.js';
import { TestDnsServer } from './test-dns-server.js';

let dns: TestDnsServer;
let resolver: Resolver;
const zone: Record<string, readonly string[] | 'silent'> = {
  'public.test': ['93.184.215.14', '2606:4700::1111'],
  'private.test': ['10.0.0.5'],
  'mixed.test': ['93.184.215.14', '169.254.169.254'],
  'own.test': ['93.184.215.20'],
  'hangs.test': 'silent',
};

beforeAll(async () => {
  dns = await TestDnsServer.start((name) => zone[name] ?? []);
  // Short tries: the silent server's question must fail quickly here; the server's are seconds.
  resolver = new Resolver({ timeout: 200, tries: 1 });
  resolver.setServers([dns.address]);
});
afterAll(() => dns.close());

const interfaces = () => ['127.0.0.1', '::1', '93.184.215.20'];
const policy = (allow: string[] = []) => new AddressPolicy(allow, { interfaces, resolver });

describe('checkCallbackUrl', () => {
  it.each([
    ['ftp://example.com/x', /http or https/],
    ['/relative', /absolute/],
    ['https://user:pw@example.com/', /user name or password/],
    [`https://example.com/${'a'.repeat(2048)}`, /at most 2048/],
    ['http://127.0.0.1:8080/hook', /127\.0\.0\.1 is loopback/],
    ['http://[::1]/hook', /::1 is outside the global unicast/],
    ['http://[::127.0.0.1]/hook', /is outside the global unicast/],
    ['http://[::ffff:192.168.0.1]/', /carries 192\.168\.0\.1/],
    ['http://localhost/hook', /loopback/],
    ['http://169.254.169.254/latest/meta-data', /169\.254\.169\.254 is link-local/],
    ['http://192.0.2.1/', /documentation/],
    ['http://93.184.215.20:6379/', /this server's own host/],
    ['http://own.test/', /this server's own host/],
    ['http://private.test/', /10\.0\.0\.5 is private/],
    ['http://mixed.test/', /169\.254\.169\.254 is link-local/],
    ['http://nowhere.test/', /does not resolve \(nowhere\.test\)/],
    ['http://hangs.test/', /does not resolve \(hangs\.test\)/],
  ])('refuses %s', async (url, message) => {
    await expect(checkCallbackUrl(url, policy())).rejects.toThrow(message);
  });

  it('takes public addresses and names that resolve only to them', async () => {
    expect(await checkCallbackUrl('https://93.184.215.14/hook?a=1', policy())).toBe(
      'https://93.184.215.14/hook?a=1',
    );
    expect(await checkCallbackUrl('https://public.test/hook', policy())).toBe('https://public.test/hook');
  });

  it('takes what the allow-list opens, never the host itself', async () => {
    const allowing = policy(['127.0.0.0/8', '10.0.0.0/8', '93.184.215.20/32']);
    expect(await checkCallbackUrl('http://127.0.0.1:9/x', allowing)).toBe('http://127.0.0.1:9/x');
    expect(await checkCallbackUrl('http://private.test/x', allowing)).toBe('http://private.test/x');
    await expect(checkCallbackUrl('http://[::127.0.0.1]/x', allowing)).rejects.toThrow(/global unicast/);
    await expect(checkCallbackUrl('http://93.184.215.20/x', allowing)).rejects.toThrow(/own host/);
  });
});

import { describe, expect, it } from 'vitest';
import { checkCallbackUrl } from './callback-url.js';

describe('checkCallbackUrl', () => {
  it.each([
    ['ftp://example.com/x', /http or https/],
    ['/relative', /absolute/],
    ['https://user:pw@example.com/', /user name or password/],
    [`https://example.com/${'a'.repeat(2048)}`, /at most 2048/],
    ['http://127.0.0.1:8080/hook', /127\.0\.0\.1, a loopback/],
    ['http://[::1]/hook', /::1/],
    ['http://localhost/hook', /loopback/],
    ['http://169.254.169.254/latest/meta-data', /169\.254\.169\.254/],
    ['http://10.0.0.5/', /10\.0\.0\.5/],
    ['http://[::ffff:192.168.0.1]/', /loopback, private/],
  ])('refuses %s', async (url, message) => {
    await expect(checkCallbackUrl(url, false)).rejects.toThrow(message);
  });

  it('takes a public address, and a private one when the operator allows it', async () => {
    expect(await checkCallbackUrl('https://93.184.215.14/hook?a=1', false)).toBe(
      'https://93.184.215.14/hook?a=1',
    );
    expect(await checkCallbackUrl('http://127.0.0.1:9/x', true)).toBe('http://127.0.0.1:9/x');
  });
});

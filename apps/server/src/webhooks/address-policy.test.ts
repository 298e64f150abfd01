import { describe, expect, it } from 'vitest';
import { guardedLookup, isPrivateAddress } from './address-policy.js';

describe('isPrivateAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.9.9.9', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd12:3456::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:10.0.0.1', true],
    ['not an address', true],
    ['93.184.215.14', false],
    ['172.32.0.1', false],
    ['8.8.8.8', false],
    ['2606:4700::1111', false],
    ['::ffff:8.8.8.8', false],
  ])('%s: %s', (address, want) => {
    expect(isPrivateAddress(address)).toBe(want);
  });
});

describe('guardedLookup', () => {
  const resolve = (allowPrivate: boolean, all: boolean) =>
    new Promise<unknown>((done) =>
      guardedLookup(allowPrivate)('localhost', { all }, (error, address) => done(error ?? address)),
    );

  it('refuses a name that resolves to loopback when connecting', async () => {
    expect(await resolve(false, false)).toMatchObject({ name: 'PrivateAddressError' });
    expect(await resolve(false, true)).toMatchObject({ name: 'PrivateAddressError' });
  });

  it('lets it through when the operator allows private addresses', async () => {
    expect(await resolve(true, false)).toMatch(/^(127\.0\.0\.1|::1)$/);
    expect(await resolve(true, true)).toEqual(
      expect.arrayContaining([expect.objectContaining({ address: expect.any(String) })]),
    );
  });
});

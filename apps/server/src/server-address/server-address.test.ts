import { describe, expect, it } from 'vitest';
import { linkBase } from './server-address.js';

describe('linkBase', () => {
  it.each<[string, { listening: string; publicUrl: string | null }, string]>([
    ['where it listens', { listening: 'http://127.0.0.1:3411', publicUrl: null }, 'http://127.0.0.1:3411'],
    [
      'the public URL first',
      { listening: 'http://127.0.0.1:3411', publicUrl: 'https://pdn.example.com' },
      'https://pdn.example.com',
    ],
    [
      'every IPv4 interface as localhost',
      { listening: 'http://0.0.0.0:3000', publicUrl: null },
      'http://localhost:3000',
    ],
    [
      'every IPv6 interface as localhost',
      { listening: 'http://[::]:3000', publicUrl: null },
      'http://localhost:3000',
    ],
    [
      'an IPv6 address kept in brackets',
      { listening: 'http://[::1]:3000', publicUrl: null },
      'http://[::1]:3000',
    ],
  ])('%s', (_name, address, want) => {
    expect(linkBase(address)).toBe(want);
  });
});

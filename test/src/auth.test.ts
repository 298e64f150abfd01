// Authentication (spec "Authentication"): `Authorization: Bearer <key>` with keys
// `pdn_live_<32 hex>` / `pdn_test_<32 hex>`; missing, malformed, unknown or revoked is 401 unauthorized.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CallOptions } from './contract/checked-fetch.js';
import { field, form } from './harness/form.js';
import { useServer } from './harness/use-server.js';

const ctx = useServer();
const HEX32 = '0123456789abcdef0123456789abcdef';

let liveKey: string;
let testKey: string;
let revokedKey: string;

beforeAll(async () => {
  liveKey = await ctx.server.createKey({ user: 'alice', plan: 'premium' });
  testKey = await ctx.server.createKey({ user: 'alice', plan: 'premium', test: true });
  revokedKey = await ctx.server.createKey({ user: 'mallory', plan: 'premium' });
  const [id, ...others] = await ctx.server.keyIds('mallory');
  expect(id, 'keys list shows the key id').toBeDefined();
  expect(others).toEqual([]);
  await ctx.server.revokeKey(id ?? '');
});

/** One cheap GET and one upload endpoint: the key is checked before anything else on both. */
const endpoints: [string, string, () => CallOptions][] = [
  ['GET /api/v1/languages', '/api/v1/languages', () => ({})],
  ['POST /api/v1/split', '/api/v1/split', () => ({ body: form(field('ranges', '1')) })],
];

describe.each(endpoints)('%s', (_name, path, request) => {
  const refused: [string, () => Record<string, string>][] = [
    ['no Authorization header', () => ({})],
    ['an empty bearer token', () => ({ authorization: 'Bearer ' })],
    ['another scheme', () => ({ authorization: `Basic ${Buffer.from(`${liveKey}:`).toString('base64')}` })],
    ['the key without "Bearer"', () => ({ authorization: liveKey })],
    ['31 hex digits', () => ({ authorization: `Bearer pdn_live_${HEX32.slice(1)}` })],
    ['33 hex digits', () => ({ authorization: `Bearer pdn_live_${HEX32}0` })],
    ['uppercase hex', () => ({ authorization: `Bearer pdn_live_${HEX32.toUpperCase()}` })],
    ['an unknown prefix', () => ({ authorization: `Bearer pdn_prod_${HEX32}` })],
    ['a non-hex digit', () => ({ authorization: `Bearer pdn_live_${HEX32.slice(1)}g` })],
    ['a well-formed unknown key', () => ({ authorization: `Bearer pdn_live_${HEX32}` })],
    ['a revoked key', () => ({ authorization: `Bearer ${revokedKey}` })],
    ['a valid key with trailing junk', () => ({ authorization: `Bearer ${liveKey}x` })],
  ];

  it.each(refused)('refuses %s with 401 unauthorized', async (_case, headers) => {
    const res = await ctx.call<{ error: { message: string } }>(path, { ...request(), headers: headers() });
    expect(res.status).toBe(401);
  });

  it.each([
    ['a live key', () => liveKey],
    ['a test key', () => testKey],
  ])('accepts %s', async (_case, key) => {
    const res = await ctx.call(path, { ...request(), key: key() });
    expect(res.status).not.toBe(401);
  });
});

it('stores keys only as hashes and never lists them in full', async () => {
  const files = (await readdir(ctx.server.dataDir)).filter((name) => name.startsWith('pdn.sqlite'));
  expect(files.length).toBeGreaterThan(0);
  for (const name of files) {
    const bytes = await readFile(join(ctx.server.dataDir, name));
    for (const key of [liveKey, testKey]) expect(bytes.includes(key), `${key} in ${name}`).toBe(false);
  }
  const listing = await ctx.server.admin(['keys', 'list']);
  expect(listing.exitCode).toBe(0);
  for (const key of [liveKey, testKey, revokedKey]) expect(listing.stdout).not.toContain(key);
});

it("a revoked key stays revoked after a restart; the user's other keys are unaffected", async () => {
  const spare = await ctx.server.createKey({ user: 'mallory', plan: 'premium' });
  await ctx.server.restart();
  expect((await ctx.call('/api/v1/languages', { key: revokedKey })).status).toBe(401);
  expect((await ctx.call('/api/v1/languages', { key: spare })).status).toBe(200);
});

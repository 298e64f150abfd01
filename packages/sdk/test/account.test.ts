// pdn.account(): GET /api/v1/account with the key, the data as the server sent it, the request id
// and rate-limit headers beside it, and the usual error mapping; pdn.revokeKey(): DELETE of the
// calling key.
import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import { AuthenticationError } from '../src/index.js';
import { apiKey, baseUrl, client, fail, ok, sent, server, useMsw } from './msw.js';

useMsw();

const free = {
  plan: 'free',
  requests_per_hour: 10,
  used: 3,
  remaining: 7,
  next_slot_at: '2026-01-01T13:00:00.000Z',
  key: { id: 'key_0123456789ab', kind: 'test' },
};
const enterprise = {
  ...free,
  plan: 'enterprise',
  requests_per_hour: null,
  remaining: null,
  next_slot_at: null,
};

describe('account', () => {
  it.each([
    ['a Free account', free],
    ['an unlimited Enterprise account with an empty window', enterprise],
  ])('returns %s as the server sent it', async (_name, data) => {
    server.use(http.get(`${baseUrl}/api/v1/account`, () => ok(data)));
    const result = await client().account();
    expect(JSON.parse(JSON.stringify(result))).toEqual(data);
    expect(result.requestId).toBe('req_ok');
    expect(result.rateLimit?.remaining).toBe(998);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.method).toBe('GET');
    expect(sent[0]?.headers.get('authorization')).toBe(`Bearer ${apiKey}`);
  });

  it('maps 401 to AuthenticationError without retrying', async () => {
    server.use(http.get(`${baseUrl}/api/v1/account`, () => fail(401, 'unauthorized')));
    await expect(client().account()).rejects.toBeInstanceOf(AuthenticationError);
    expect(sent).toHaveLength(1);
  });
});

describe('revokeKey', () => {
  it('sends DELETE /api/v1/account/key with the key and returns the revoked key', async () => {
    server.use(
      http.delete(`${baseUrl}/api/v1/account/key`, () => ok({ id: 'key_0123456789ab', kind: 'live' })),
    );
    const result = await client().revokeKey();
    expect(JSON.parse(JSON.stringify(result))).toEqual({ id: 'key_0123456789ab', kind: 'live' });
    expect(sent[0]?.method).toBe('DELETE');
    expect(sent[0]?.headers.get('authorization')).toBe(`Bearer ${apiKey}`);
  });

  it('maps 401 (a key already revoked) to AuthenticationError without retrying', async () => {
    server.use(http.delete(`${baseUrl}/api/v1/account/key`, () => fail(401, 'unauthorized')));
    await expect(client().revokeKey()).rejects.toBeInstanceOf(AuthenticationError);
    expect(sent).toHaveLength(1);
  });
});

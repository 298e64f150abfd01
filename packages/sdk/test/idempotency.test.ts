// Idempotency-Key (STYLE.md 21): one key per call, made before the retry loop, so every
// attempt of a call sends the same one; a caller's own key is sent as given; reads carry none.
import { HttpResponse, http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { baseUrl, client, compressData, fail, ok, sent, server, settle, useMsw } from './msw.js';

useMsw();

const file = new Uint8Array([37, 80, 68, 70]);

/** Answers compress with the listed responses in turn, then repeats the last one. */
function answers(...responses: Array<() => Response>): void {
  let call = 0;
  server.use(
    http.post(`${baseUrl}/api/v1/compress`, () => {
      const respond = responses[Math.min(call++, responses.length - 1)];
      return respond?.() ?? HttpResponse.error();
    }),
  );
}

const keys = () => sent.map((request) => request.headers.get('idempotency-key'));

describe('Idempotency-Key', () => {
  it('is made once per call and sent with every retry of it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    answers(
      () => HttpResponse.error(),
      () => fail(409, 'idempotency_in_progress'),
      () => ok(compressData),
    );
    const result = await settle(client().compress({ file }));
    expect(result.status).toBe('fulfilled');
    const [first, ...rest] = keys();
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(rest).toEqual([first, first]);
  });

  it('differs between calls', async () => {
    answers(() => ok(compressData));
    await client().compress({ file });
    await client().compress({ file });
    expect(new Set(keys()).size).toBe(2);
  });

  it("sends the caller's own key", async () => {
    answers(() => ok(compressData));
    await client().compress({ file, idempotencyKey: 'order-42' });
    expect(keys()).toEqual(['order-42']);
  });

  it('is not sent on reads', async () => {
    server.use(http.get(`${baseUrl}/api/v1/languages`, () => ok({ default: 'eng', languages: [] })));
    await client().languages();
    expect(keys()).toEqual([null]);
  });

  it('does not retry a 422: the key was used for another request', async () => {
    answers(() => fail(422, 'idempotency_key_reused'));
    const result = await settle(client().compress({ file }));
    expect(result.status === 'rejected' && result.reason).toMatchObject({
      code: 'idempotency_key_reused',
      status: 422,
    });
    expect(sent).toHaveLength(1);
  });
});

// Upload limits (spec "Other limits"): the whole request is capped per plan, refused with
// 413 payload_too_large while it is still streaming, and nothing is left on disk. Small limits are
// configured so the test moves megabytes, not gigabytes.
import { describe, expect, it } from 'vitest';
import { file, form } from './harness/form.js';
import { filesLeftSince, listFiles } from './harness/leftovers.js';
import { streamUpload } from './harness/stream-upload.js';
import { useServer } from './harness/use-server.js';

const MiB = 1024 * 1024;
const ctx = useServer({
  env: { PDN_UPLOAD_LIMIT_FREE: String(1 * MiB), PDN_UPLOAD_LIMIT_PREMIUM: String(4 * MiB) },
});

describe('upload size limits', () => {
  it.each([
    ['with Content-Length', true],
    ['chunked, with no length announced', false],
  ])(
    'refuses a 64 MiB upload %s with 413 before it has all arrived, leaving no files',
    async (_name, declareLength) => {
      const key = await ctx.server.createKey({ user: `big-${declareLength}`, plan: 'free' });
      const before = await listFiles(ctx.server);
      const res = await streamUpload(ctx.server.url('/api/v1/compress'), {
        key,
        fileBytes: 64 * MiB,
        declareLength,
      });
      expect(res.status).toBe(413);
      expect(res.json?.error?.code).toBe('payload_too_large');
      expect(res.bytesSent).toBeLessThan(res.bytesTotal);
      expect(await filesLeftSince(ctx.server, before)).toEqual([]);
    },
  );

  it("applies each plan's own limit: 2 MiB is too much for Free, fine for Premium", async () => {
    const free = await ctx.server.createKey({ user: 'two-mib-free', plan: 'free' });
    const premium = await ctx.server.createKey({ user: 'two-mib-premium', plan: 'premium' });
    const upload = { fileBytes: 2 * MiB, declareLength: false };
    expect((await streamUpload(ctx.server.url('/api/v1/compress'), { ...upload, key: free })).status).toBe(
      413,
    );
    // Not a real PDF, so past the size check it is refused as invalid input instead.
    expect((await streamUpload(ctx.server.url('/api/v1/compress'), { ...upload, key: premium })).status).toBe(
      400,
    );
  });

  it('caps the combined upload of a merge, not just each file', async () => {
    const key = await ctx.server.createKey({ user: 'combined', plan: 'free' });
    const part = new Uint8Array(400 * 1024).fill(0x20);
    const before = await listFiles(ctx.server);
    const res = await ctx.call('/api/v1/merge', {
      key,
      body: form(
        file('files[]', part, 'a.pdf'),
        file('files[]', part, 'b.pdf'),
        file('files[]', part, 'c.pdf'),
      ),
    });
    expect(res.status).toBe(413);
    expect(await filesLeftSince(ctx.server, before)).toEqual([]);
  });

  it.each<[string, () => Promise<string>, number]>([
    ['an unknown key: 401', async () => `pdn_live_${'0'.repeat(32)}`, 401],
    [
      'a body over the plan limit: 413',
      () => ctx.server.createKey({ user: 'expect-free', plan: 'free' }),
      413,
    ],
  ])('answers Expect: 100-continue before the body for %s', async (_name, key, status) => {
    const res = await streamUpload(ctx.server.url('/api/v1/compress'), {
      key: await key(),
      fileBytes: 8 * MiB,
      declareLength: true,
      expectContinue: true,
    });
    expect(res.status).toBe(status);
    expect(res.bytesSent).toBe(0);
  });

  it('says 100 Continue to an acceptable upload and reads it', async () => {
    const key = await ctx.server.createKey({ user: 'expect-premium', plan: 'premium' });
    const res = await streamUpload(ctx.server.url('/api/v1/compress'), {
      key,
      fileBytes: 64 * 1024,
      declareLength: true,
      expectContinue: true,
    });
    // The body was sent in full; it is not a real PDF, so the answer is about its content.
    expect(res.bytesSent).toBe(res.bytesTotal);
    expect(res.status).toBe(400);
  });

  it('survives clients that go away mid-upload, leaving no files', async () => {
    const key = await ctx.server.createKey({ user: 'aborter', plan: 'premium' });
    const before = await listFiles(ctx.server);
    for (const abortAfterBytes of [10, 64 * 1024, 1 * MiB, 3 * MiB]) {
      await streamUpload(ctx.server.url('/api/v1/compress'), {
        key,
        fileBytes: 3.5 * MiB,
        declareLength: true,
        abortAfterBytes,
      });
    }
    expect(await filesLeftSince(ctx.server, before)).toEqual([]);
    expect((await ctx.call('/healthz')).status).toBe(200);
  });
});

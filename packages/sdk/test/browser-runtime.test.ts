// The SDK as it runs in a browser: runtime.ts says so, and the requests change. The real
// browser is driven by test/src/browser (Playwright); this pins the request shape with msw.
import { http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { toFile, type UploadProgress } from '../src/index.js';
import { baseUrl, client, compressData, fail, ok, sent, server, useMsw } from './msw.js';

vi.mock('../src/internal/runtime.js', () => ({
  detectRuntime: () => ({ userAgent: undefined, streamsUploads: false }),
}));

useMsw();

function capturingFetch() {
  const inits: RequestInit[] = [];
  const fetch = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
    inits.push(init ?? {});
    return globalThis.fetch(url, init);
  });
  return { fetch, inits };
}

function stream(text: string): ReadableStream<Uint8Array> {
  return new Blob([text]).stream();
}

describe('in a browser', () => {
  it('sends no User-Agent of its own', async () => {
    server.use(http.get(`${baseUrl}/api/v1/languages`, () => ok({ default: 'eng', languages: [] })));
    await client().languages();
    expect(sent[0]?.headers.get('user-agent') ?? '').not.toMatch(/pdn-sdk/);
  });

  it('uploads a Blob, even with progress asked for', async () => {
    server.use(http.post(`${baseUrl}/api/v1/compress`, () => ok(compressData)));
    const { fetch, inits } = capturingFetch();
    await client({ fetch }).compress({ file: new Blob(['%PDF-1.7']), onUploadProgress: () => {} });
    expect(inits[0]?.body).toBeInstanceOf(Blob);
    expect(inits[0]).not.toHaveProperty('duplex');
    expect(new Headers(inits[0]?.headers).has('content-length')).toBe(false); // browsers forbid it
  });

  it('reads a stream into a Blob first, even without retries', async () => {
    server.use(http.post(`${baseUrl}/api/v1/compress`, () => ok(compressData)));
    const { fetch, inits } = capturingFetch();
    await client({ fetch, maxRetries: 0 }).compress({ file: toFile(stream('%PDF-1.7'), 'a.pdf') });
    expect(inits[0]?.body).toBeInstanceOf(Blob);
    expect(await sent[0]?.text()).toContain('%PDF-1.7');
  });

  it('reports progress only when it knows: nothing sent, then all of it once answered', async () => {
    server.use(http.post(`${baseUrl}/api/v1/compress`, () => ok(compressData)));
    const events: UploadProgress[] = [];
    await client().compress({ file: new Blob(['%PDF-1.7']), onUploadProgress: (p) => events.push(p) });
    const total = events[0]?.total;
    expect(total).toBeGreaterThan(8);
    expect(events).toEqual([
      { loaded: 0, total },
      { loaded: total, total },
    ]);
  });

  it('does not claim the body arrived when the server refused it early', async () => {
    server.use(http.post(`${baseUrl}/api/v1/compress`, () => fail(413, 'payload_too_large')));
    const events: UploadProgress[] = [];
    await client({ maxRetries: 0 })
      .compress({ file: new Blob(['%PDF-1.7']), onUploadProgress: (p) => events.push(p) })
      .catch(() => undefined);
    expect(events.map((e) => e.loaded)).toEqual([0]);
  });
});

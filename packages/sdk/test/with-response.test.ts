import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { ApiPromise, InvalidInputError, NotFoundError, RateLimitError } from '../src/index.js';
import {
  baseUrl,
  client,
  compressData,
  download,
  fail,
  ok,
  rateLimitHeaders,
  sent,
  server,
  useMsw,
} from './msw.js';

useMsw();

describe('withResponse()', () => {
  it('gives the result and the raw Response of the same single request', async () => {
    server.use(http.post(`${baseUrl}/api/v1/compress`, () => ok(compressData)));
    const call = client().compress({ file: Buffer.from('%PDF-') });
    expect(call).toBeInstanceOf(ApiPromise);
    const { data, response } = await call.withResponse();
    expect(await call).toBe(data);
    expect(data.requestId).toBe('req_ok');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-remaining')).toBe('998');
    expect(sent).toHaveLength(1);
  });

  it('works for downloads, whose data are bytes', async () => {
    server.use(
      http.get(`${baseUrl}/api/get-pdf.php`, () =>
        HttpResponse.arrayBuffer(new TextEncoder().encode('%PDF-1.7').buffer, {
          headers: { 'content-type': 'application/pdf' },
        }),
      ),
    );
    const { data, response } = await client().download(download()).withResponse();
    expect(new TextDecoder().decode(data)).toBe('%PDF-1.7');
    expect(response.headers.get('content-type')).toBe('application/pdf');
  });

  it('rejects as the plain call does', async () => {
    server.use(http.post(`${baseUrl}/api/v1/compress`, () => fail(429, 'rate_limited', rateLimitHeaders)));
    const call = client({ maxRetries: 0 }).compress({ file: Buffer.from('%PDF-') });
    await expect(call.withResponse()).rejects.toBeInstanceOf(RateLimitError);
    await expect(call).rejects.toBeInstanceOf(RateLimitError);
  });

  it('rejects a refusal made before sending', async () => {
    const call = client().compress({ file: Buffer.from('%PDF-'), level: 'max' as 'high' });
    await expect(call.withResponse()).rejects.toBeInstanceOf(InvalidInputError);
    expect(sent).toHaveLength(0);
  });
});

describe('asResponse()', () => {
  it('gives the raw Response of the one request, its body not read', async () => {
    server.use(http.post(`${baseUrl}/api/v1/compress`, () => ok(compressData)));
    const response = await client()
      .compress({ file: Buffer.from('%PDF-') })
      .asResponse();
    expect(response.status).toBe(200);
    expect(response.bodyUsed).toBe(false);
    expect(((await response.json()) as { data: unknown }).data).toEqual(compressData);
    expect(sent).toHaveLength(1);
  });

  it('streams a download as it comes, for the caller to read', async () => {
    server.use(
      http.get(`${baseUrl}/api/get-pdf.php`, () =>
        HttpResponse.arrayBuffer(new TextEncoder().encode('%PDF-1.7').buffer, {
          headers: { 'content-type': 'application/pdf' },
        }),
      ),
    );
    const response = await client().download(download(), '/nonexistent/never-written.pdf').asResponse();
    expect(new TextDecoder().decode(await response.arrayBuffer())).toBe('%PDF-1.7');
    expect(response.headers.get('content-type')).toBe('application/pdf');
  });

  it('rejects an error answer with its typed error, after the usual retries', async () => {
    server.use(http.get(`${baseUrl}/api/v1/jobs/job_x`, () => fail(404, 'not_found')));
    await expect(client().jobs.get('job_x').asResponse()).rejects.toBeInstanceOf(NotFoundError);
    expect(sent).toHaveLength(1);
  });

  it('on a call already awaited, gives that Response, its body read; no second request', async () => {
    server.use(http.get(`${baseUrl}/api/v1/languages`, () => ok({ default: 'eng', languages: [] })));
    const call = client().languages();
    await call;
    const response = await call.asResponse();
    expect(response.bodyUsed).toBe(true);
    expect(sent).toHaveLength(1);
  });

  it('leaves nothing to parse: awaiting the call after it is refused, not sent twice', async () => {
    server.use(http.get(`${baseUrl}/api/v1/languages`, () => ok({ default: 'eng', languages: [] })));
    const call = client().languages();
    await call.asResponse();
    await expect(call).rejects.toBeInstanceOf(InvalidInputError);
    expect(sent).toHaveLength(1);
  });
});

it('an ApiPromise chains into plain Promises', async () => {
  server.use(http.get(`${baseUrl}/api/v1/languages`, () => ok({ default: 'eng', languages: [] })));
  const chained = client()
    .languages()
    .then((result) => result.default);
  expect(chained).not.toBeInstanceOf(ApiPromise);
  await expect(chained).resolves.toBe('eng');
});

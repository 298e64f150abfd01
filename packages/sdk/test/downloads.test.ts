import { getEventListeners } from 'node:events';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpResponse, http } from 'msw';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AbortError,
  ConnectionError,
  ExpiredError,
  ForbiddenError,
  NotFoundError,
  Pdn,
} from '../src/index.js';
import { apiKey, baseUrl, client, download, type ErrorClass, fail, sent, server, useMsw } from './msw.js';

useMsw();

const pdfBytes = new TextEncoder().encode('%PDF-1.7 the output %%EOF');

function serve(
  respond: () => Response = () =>
    new HttpResponse(pdfBytes, { headers: { 'content-type': 'application/pdf' } }),
): void {
  server.use(http.get(`${baseUrl}/api/get-pdf.php`, respond));
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-sdk-downloads-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('download to bytes', () => {
  it('returns the bytes, fetched without the API key (the signature is the credential)', async () => {
    serve();
    const bytes = await client().download(download());
    expect(bytes).toEqual(pdfBytes);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.url).toBe(`${baseUrl}/api/get-pdf.php?file=out1&exp=1800000000&sig=abc`);
    expect(sent[0]?.headers.get('authorization')).toBeNull();
  });

  it('resolves the relative URL under a base URL with a path', async () => {
    server.use(http.get(`${baseUrl}/pdn/api/get-pdf.php`, () => new HttpResponse(pdfBytes)));
    const bytes = await new Pdn({ apiKey, baseUrl: `${baseUrl}/pdn/` }).download(download());
    expect(bytes).toEqual(pdfBytes);
  });
});

describe('downloadUrl', () => {
  const table: Array<[string, { base: string; url: string; want: string }]> = [
    [
      'joins a path to the base URL',
      {
        base: 'http://h:8080',
        url: '/api/get-pdf.php?file=a&sig=b',
        want: 'http://h:8080/api/get-pdf.php?file=a&sig=b',
      },
    ],
    [
      'keeps the base URL path prefix',
      {
        base: 'https://h/pdn/',
        url: '/api/get-pdf.php?file=a',
        want: 'https://h/pdn/api/get-pdf.php?file=a',
      },
    ],
    [
      'leaves an absolute URL alone',
      { base: 'http://h', url: 'https://cdn/x.pdf', want: 'https://cdn/x.pdf' },
    ],
  ];
  it.each(table)('%s', (_name, { base, url, want }) => {
    expect(new Pdn({ apiKey, baseUrl: base }).downloadUrl(download({ url }))).toBe(want);
  });
});

describe('download to a path', () => {
  it('writes the file and leaves no temp file behind', async () => {
    serve();
    const target = join(dir, 'out.pdf');
    await expect(client().download(download(), target)).resolves.toBe(target);
    expect(await readFile(target)).toEqual(Buffer.from(pdfBytes));
    expect(await readdir(dir)).toEqual(['out.pdf']);
  });

  it('writes a body of some MiB that comes in many odd-sized chunks, byte for byte', async () => {
    const big = new Uint8Array(3 * 1024 * 1024 + 12345).map((_, i) => (i * 31) % 251);
    serve(() => {
      let at = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (at >= big.length) return controller.close();
          const size = 1000 + (Math.floor(at / 7) % 70_000);
          controller.enqueue(big.slice(at, at + size));
          at += size;
        },
      });
      return new HttpResponse(body);
    });
    const target = join(dir, 'big.pdf');
    await client().download(download(), target);
    expect(Buffer.compare(await readFile(target), Buffer.from(big))).toBe(0);
    expect(await readdir(dir)).toEqual(['big.pdf']);
  });

  it('replaces an existing file by default', async () => {
    serve();
    const target = join(dir, 'out.pdf');
    await writeFile(target, 'old');
    await client().download(download(), target);
    expect(await readFile(target, 'utf8')).toBe('%PDF-1.7 the output %%EOF');
  });

  it('with overwrite: false, refuses an existing file with EEXIST before downloading', async () => {
    serve();
    const target = join(dir, 'out.pdf');
    await writeFile(target, 'old');
    const error = await client()
      .download(download(), target, { overwrite: false })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'EEXIST' });
    expect(sent).toHaveLength(0);
    expect(await readFile(target, 'utf8')).toBe('old');
  });

  it('with overwrite: false, writes a new file', async () => {
    serve();
    const target = join(dir, 'new.pdf');
    await client().download(download(), target, { overwrite: false });
    expect(await readFile(target)).toEqual(Buffer.from(pdfBytes));
    expect(await readdir(dir)).toEqual(['new.pdf']);
  });

  it('a connection lost mid-body leaves the old file intact and no temp file', async () => {
    serve(() => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(pdfBytes.subarray(0, 5));
          controller.error(new Error('socket hang up'));
        },
      });
      return new HttpResponse(body);
    });
    const target = join(dir, 'out.pdf');
    await writeFile(target, 'old');
    const error = await client({ maxRetries: 0 })
      .download(download(), target)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(await readFile(target, 'utf8')).toBe('old');
    expect(await readdir(dir)).toEqual(['out.pdf']);
  });

  it('an error answer leaves the old file intact and no temp file', async () => {
    serve(() => fail(410, 'expired'));
    const target = join(dir, 'out.pdf');
    await writeFile(target, 'old');
    const error = await client()
      .download(download(), target)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExpiredError);
    expect(await readFile(target, 'utf8')).toBe('old');
    expect(await readdir(dir)).toEqual(['out.pdf']);
  });

  it('a download retried after a 503 writes the file once and leaves no temp file', async () => {
    let calls = 0;
    serve(() =>
      calls++ === 0 ? fail(503, 'service_unavailable', { 'retry-after': '0' }) : new HttpResponse(pdfBytes),
    );
    const target = join(dir, 'out.pdf');
    await client({ maxRetries: 1 }).download(download(), target);
    expect(calls).toBe(2);
    expect(await readFile(target)).toEqual(Buffer.from(pdfBytes));
    expect(await readdir(dir)).toEqual(['out.pdf']);
  });

  it('an abort mid-body leaves no temp file', async () => {
    const controller = new AbortController();
    serve(() => {
      const body = new ReadableStream<Uint8Array>({
        start(stream) {
          stream.enqueue(pdfBytes.subarray(0, 5));
        },
        pull() {
          controller.abort(); // the rest never comes
        },
      });
      return new HttpResponse(body);
    });
    const error = await client()
      .download(download(), join(dir, 'out.pdf'), { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('download errors', () => {
  it('a connection error does not put the signed query in its message', async () => {
    serve(() => HttpResponse.error());
    const error = await client({ maxRetries: 0 })
      .download(download())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain(`${baseUrl}/api/get-pdf.php`);
    expect((error as Error).message).not.toContain('sig=');
  });

  const table: Array<[string, { status: number; code: string; want: ErrorClass }]> = [
    ['403 bad signature', { status: 403, code: 'forbidden', want: ForbiddenError }],
    ['404 output gone', { status: 404, code: 'not_found', want: NotFoundError }],
    ['410 expired', { status: 410, code: 'expired', want: ExpiredError }],
  ];
  it.each(table)('%s', async (_name, { status, code, want }) => {
    serve(() => fail(status, code));
    const error = await client()
      .download(download(), join(dir, 'out.pdf'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(want);
    expect(error).toMatchObject({ status, code, requestId: `req_${status}` });
    expect(sent).toHaveLength(1); // not retried
    expect(await readdir(dir)).toEqual([]);
  });

  it('an expired download object is refused without calling the server', async () => {
    serve();
    const expired = download({ expires_at: new Date(Date.now() - 1000).toISOString(), expires_in: 0 });
    const error = await client()
      .download(expired)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExpiredError);
    expect(error).toMatchObject({ code: 'expired', status: undefined });
    await expect(client().downloadStream(expired)).rejects.toBeInstanceOf(ExpiredError);
    expect(sent).toHaveLength(0);
  });
});

describe('downloadStream', () => {
  it('gives the body as a stream', async () => {
    serve();
    const stream = await client().downloadStream(download());
    expect(new Uint8Array(await new Response(stream).arrayBuffer())).toEqual(pdfBytes);
  });

  it('maps errors like download', async () => {
    serve(() => fail(404, 'not_found'));
    await expect(client().downloadStream(download())).rejects.toBeInstanceOf(NotFoundError);
  });

  // A signal shared by many calls (the CLI's Ctrl-C) must not collect a listener per download.
  it("lets go of the caller's signal once the body is read, or cancelled", async () => {
    serve();
    const controller = new AbortController();
    const read = await client().downloadStream(download(), { signal: controller.signal });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    await new Response(read).arrayBuffer();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    const cancelled = await client().downloadStream(download(), { signal: controller.signal });
    void cancelled.cancel(); // not awaited: msw's mocked body never settles a cancel
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it("the caller's abort still stops a body being read", async () => {
    // A fetch whose body errors when the request's signal aborts, as undici's does (msw's does not).
    const fetch: typeof globalThis.fetch = async (_input, init) =>
      new Response(
        new ReadableStream({
          start(body) {
            body.enqueue(pdfBytes); // the rest never comes
            init?.signal?.addEventListener('abort', () => body.error(init.signal?.reason));
          },
        }),
      );
    const controller = new AbortController();
    const reader = (
      await client({ fetch }).downloadStream(download(), { signal: controller.signal })
    ).getReader();
    await reader.read();
    const rest = reader.read();
    controller.abort();
    await expect(rest).rejects.toBeInstanceOf(AbortError);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

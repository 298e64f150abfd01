import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { http } from 'msw';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AbortError,
  fromPath,
  InternalServerError,
  InvalidInputError,
  toFile,
  type Uploadable,
  type UploadProgress,
} from '../src/index.js';
import { baseUrl, client, compressData, fail, ok, sent, server, useMsw } from './msw.js';

useMsw();

interface Part {
  name: string;
  filename?: string;
  type?: string;
  bytes?: string;
  value?: string;
}

/** Records, per request, the multipart body exactly as a server would parse it. */
function receive(path: string, ...statuses: number[]): Part[][] {
  const bodies: Part[][] = [];
  server.use(
    http.post(`${baseUrl}${path}`, async ({ request }) => {
      const parts: Part[] = [];
      for (const [name, value] of await request.formData()) {
        if (typeof value === 'string') parts.push({ name, value });
        else parts.push({ name, filename: value.name, type: value.type, bytes: await value.text() });
      }
      bodies.push(parts);
      const status = statuses[bodies.length - 1] ?? 200;
      return status === 200 ? ok(compressData) : fail(status, 'internal_error');
    }),
  );
  return bodies;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-sdk-uploads-'));
  await writeFile(join(dir, 'report.pdf'), '%PDF-from-disk');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('each kind of upload reaches the server with its name and bytes', () => {
  const pdf = 'application/pdf';
  const table: Array<[string, { given: () => Uploadable; want: Omit<Part, 'name'> }]> = [
    [
      'fromPath',
      {
        given: () => fromPath(join(dir, 'report.pdf')),
        want: { filename: 'report.pdf', type: pdf, bytes: '%PDF-from-disk' },
      },
    ],
    [
      'Buffer',
      {
        given: () => Buffer.from('%PDF-buffer'),
        want: { filename: 'document.pdf', type: pdf, bytes: '%PDF-buffer' },
      },
    ],
    [
      'a Uint8Array viewing part of a larger buffer',
      {
        given: () => new TextEncoder().encode('xx%PDF-viewyy').subarray(2, 11),
        want: { filename: 'document.pdf', type: pdf, bytes: '%PDF-view' },
      },
    ],
    [
      'ArrayBuffer',
      {
        given: () => new TextEncoder().encode('%PDF-ab').buffer,
        want: { filename: 'document.pdf', type: pdf, bytes: '%PDF-ab' },
      },
    ],
    [
      'Blob with a type',
      {
        given: () => new Blob(['%PDF-blob'], { type: 'application/x-pdf' }),
        want: { filename: 'document.pdf', type: 'application/x-pdf', bytes: '%PDF-blob' },
      },
    ],
    [
      'File keeps its name',
      {
        given: () => new File(['%PDF-file'], 'scan.pdf'),
        want: { filename: 'scan.pdf', type: pdf, bytes: '%PDF-file' },
      },
    ],
    [
      'web ReadableStream',
      {
        given: () => new Blob(['%PDF-web']).stream(),
        want: { filename: 'document.pdf', type: pdf, bytes: '%PDF-web' },
      },
    ],
    [
      'Node Readable',
      {
        given: () => Readable.from([Buffer.from('%PDF-'), 'node']),
        want: { filename: 'document.pdf', type: pdf, bytes: '%PDF-node' },
      },
    ],
    [
      'fs.createReadStream keeps its filename',
      {
        given: () => createReadStream(join(dir, 'report.pdf')),
        want: { filename: 'report.pdf', type: pdf, bytes: '%PDF-from-disk' },
      },
    ],
    [
      'Response',
      {
        given: () => new Response('%PDF-response', { headers: { 'content-type': pdf } }),
        want: { filename: 'document.pdf', type: pdf, bytes: '%PDF-response' },
      },
    ],
    [
      'toFile names content',
      {
        given: () => toFile(Buffer.from('%PDF-named'), 'named.pdf'),
        want: { filename: 'named.pdf', type: pdf, bytes: '%PDF-named' },
      },
    ],
    [
      'toFile names a stream',
      {
        given: () => toFile(Readable.from(['%PDF-stdin']), 'stdin.pdf'),
        want: { filename: 'stdin.pdf', type: pdf, bytes: '%PDF-stdin' },
      },
    ],
    [
      'fromPath with a filename',
      {
        given: () => fromPath(join(dir, 'report.pdf'), { filename: 'other.pdf' }),
        want: { filename: 'other.pdf', type: pdf, bytes: '%PDF-from-disk' },
      },
    ],
  ];
  it.each(table)('%s', async (_name, { given, want }) => {
    const bodies = receive('/api/v1/compress');
    await client().compress({ file: given(), level: 'high' });
    expect(bodies).toEqual([
      [
        { name: 'file', ...want },
        { name: 'level', value: 'high' },
      ],
    ]);
  });
});

describe('form fields of each operation', () => {
  it('merge sends files[] in the order given', async () => {
    const bodies = receive('/api/v1/merge');
    await client().merge({
      files: [fromPath(join(dir, 'report.pdf')), Buffer.from('%PDF-2'), new Blob(['%PDF-3'])],
    });
    expect(bodies[0]?.map(({ name, filename, bytes }) => [name, filename, bytes])).toEqual([
      ['files[]', 'report.pdf', '%PDF-from-disk'],
      ['files[]', 'document-2.pdf', '%PDF-2'],
      ['files[]', 'document-3.pdf', '%PDF-3'],
    ]);
  });

  it('split joins a list of ranges with commas', async () => {
    const bodies = receive('/api/v1/split');
    await client().split({ file: Buffer.from('%PDF-'), ranges: ['1-3', '4', '5-9'] });
    expect(bodies[0]?.[1]).toEqual({ name: 'ranges', value: '1-3,4,5-9' });
  });

  it('split passes a ranges string as it is', async () => {
    const bodies = receive('/api/v1/split');
    await client().split({ file: Buffer.from('%PDF-'), ranges: '1-3, 4' });
    expect(bodies[0]?.[1]).toEqual({ name: 'ranges', value: '1-3, 4' });
  });

  it('ocr sends image and language, the image typed by its Blob', async () => {
    const bodies = receive('/api/v1/ocr');
    await client().ocr({
      image: new File(['png-bytes'], 'scan.png', { type: 'image/png' }),
      language: 'deu',
    });
    expect(bodies).toEqual([
      [
        { name: 'image', filename: 'scan.png', type: 'image/png', bytes: 'png-bytes' },
        { name: 'language', value: 'deu' },
      ],
    ]);
  });

  it('omits level and language when not given, leaving the defaults to the server', async () => {
    const bodies = receive('/api/v1/ocr');
    await client().ocr({ image: Buffer.from('png') });
    expect(bodies[0]?.map((part) => part.name)).toEqual(['image']);
  });
});

describe('refused before sending', () => {
  const table: Array<[string, { given: unknown; message: RegExp }]> = [
    [
      'a string (a path is not content)',
      { given: 'report.pdf', message: /a string is not file content.*fromPath\("report.pdf"\)/ },
    ],
    ['nothing', { given: undefined, message: /file is required/ }],
    ['a number', { given: 42, message: /expected a Blob.*got number/ }],
    ['a plain object', { given: { path: 'a.pdf' }, message: /got Object/ }],
    [
      'a missing file',
      {
        given: fromPath('/nonexistent/pdn/a.pdf'),
        message: /cannot read \/nonexistent\/pdn\/a.pdf \(ENOENT\)/,
      },
    ],
    ['a directory', { given: fromPath(tmpdir()), message: /is not a file/ }],
  ];
  it.each(table)('%s', async (_name, { given, message }) => {
    const error = await client()
      .compress({ file: given as Uploadable })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ code: 'invalid_input', status: undefined, requestId: undefined });
    expect((error as Error).message).toMatch(message);
    expect(sent).toHaveLength(0);
  });

  it('of several files that cannot be opened, names the first in the order given', async () => {
    // The files are opened all at once: whichever fails first in time, the error names the first in order.
    const error = await client()
      .merge({
        files: [fromPath(join(dir, 'report.pdf')), fromPath('/nonexistent/pdn/b.pdf'), fromPath(dir)],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(/^files\[1\]: cannot read \/nonexistent\/pdn\/b.pdf/);
    expect(sent).toHaveLength(0);
  });
});

describe('retries resend the same content', () => {
  it('a path is opened again for the retry', async () => {
    const bodies = receive('/api/v1/compress', 500, 200);
    await client({ onRetry: () => undefined }).compress({ file: fromPath(join(dir, 'report.pdf')) });
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[1]?.[0]?.bytes).toBe('%PDF-from-disk');
  });

  it('a one-shot stream is buffered when retries are enabled, and resent whole', async () => {
    const bodies = receive('/api/v1/compress', 500, 200);
    await client({ maxRetries: 1 }).compress({ file: toFile(Readable.from(['%PDF-', 'once']), 'in.pdf') });
    expect(bodies.map((parts) => parts[0]?.bytes)).toEqual(['%PDF-once', '%PDF-once']);
  });

  it('a buffered stream larger than one 8 MiB batch is resent whole and in order', async () => {
    const digests: string[] = [];
    let calls = 0;
    server.use(
      http.post(`${baseUrl}/api/v1/compress`, async ({ request }) => {
        const file = (await request.formData()).get('file') as File;
        digests.push(
          createHash('sha256')
            .update(await file.bytes())
            .digest('hex'),
        );
        return ++calls === 1 ? fail(500, 'internal_error') : ok(compressData);
      }),
    );
    // 20 chunks of 1 MiB, each filled with its own index, so a lost or reordered chunk shows.
    const chunks = Array.from({ length: 20 }, (_, i) => new Uint8Array(1024 * 1024).fill(i));
    const want = createHash('sha256');
    for (const chunk of chunks) want.update(chunk);
    await client({ maxRetries: 1 }).compress({ file: Readable.from(chunks) });
    expect(digests).toEqual([want.digest('hex'), digests[0]]);
  });

  it('an abort while buffering a stream that never ends sends nothing', async () => {
    receive('/api/v1/compress');
    const controller = new AbortController();
    let chunks = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(stream) {
        stream.enqueue(new Uint8Array(1024));
        if (++chunks === 100) controller.abort();
        if (chunks === 10_000) stream.close(); // should the abort be ignored, fail rather than fill memory
      },
    });
    const error = await client({ maxRetries: 1 })
      .compress({ file: endless, signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(chunks).toBeLessThan(10_000); // reading stopped at the abort, not at the end
    expect(sent).toHaveLength(0);
  });

  it('with retries off, a stream is sent as it comes, once, and a failure is final', async () => {
    const bodies = receive('/api/v1/compress', 500, 200);
    const error = await client({ maxRetries: 0 })
      .compress({ file: Readable.from(['%PDF-', 'streamed']) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(bodies.map((parts) => parts[0]?.bytes)).toEqual(['%PDF-streamed']);
  });
});

describe('upload progress (onUploadProgress)', () => {
  /** Records each request's Content-Length header and the length of the body that arrived. */
  function measure(path: string, ...statuses: number[]): Array<{ header: string | null; bytes: number }> {
    const seen: Array<{ header: string | null; bytes: number }> = [];
    server.use(
      http.post(`${baseUrl}${path}`, async ({ request }) => {
        const header = request.headers.get('content-length');
        seen.push({ header, bytes: (await request.arrayBuffer()).byteLength });
        return (statuses[seen.length - 1] ?? 200) === 200 ? ok(compressData) : fail(500, 'internal_error');
      }),
    );
    return seen;
  }

  it('counts a file-backed body up to its size, and keeps that size as Content-Length', async () => {
    const seen = measure('/api/v1/compress');
    const events: UploadProgress[] = [];
    await client().compress({
      file: fromPath(join(dir, 'report.pdf')),
      onUploadProgress: (progress) => events.push(progress),
    });
    const size = seen[0]?.bytes;
    // The server refuses an oversize upload from this header before reading the body.
    expect(seen).toEqual([{ header: String(size), bytes: size }]);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((event) => event.total === size)).toBe(true);
    expect(events.at(-1)?.loaded).toBe(size);
    const loaded = events.map((event) => event.loaded);
    expect(loaded).toEqual([...loaded].sort((a, b) => a - b));
  });

  it('counts a one-shot stream sent as it comes, whose size is unknown', async () => {
    const seen = measure('/api/v1/compress');
    const events: UploadProgress[] = [];
    await client({ maxRetries: 0 }).compress({
      file: Readable.from(['%PDF-', 'streamed']),
      onUploadProgress: (progress) => events.push(progress),
    });
    expect(seen[0]?.header).toBeNull();
    expect(events.at(-1)).toEqual({ loaded: seen[0]?.bytes, total: undefined });
  });

  it('starts again from 0 when a retry resends the body', async () => {
    const seen = measure('/api/v1/compress', 500, 200);
    const events: UploadProgress[] = [];
    await client({ maxRetries: 1 }).compress({
      file: Buffer.from('%PDF-retried'),
      onUploadProgress: (progress) => events.push(progress),
    });
    const size = seen[0]?.bytes ?? 0;
    const restarts = events.filter((event, i) => i > 0 && event.loaded <= (events[i - 1]?.loaded ?? 0));
    expect(restarts).toHaveLength(1);
    expect(events.filter((event) => event.loaded === size)).toHaveLength(2);
  });

  it('without the hook a Blob body goes to fetch as a Blob (fetch sets its length)', async () => {
    let body: unknown;
    const fetch: typeof globalThis.fetch = async (_input, init) => {
      body = init?.body;
      return ok(compressData);
    };
    await client({ fetch }).compress({ file: Buffer.from('%PDF-') });
    expect(body).toBeInstanceOf(Blob);
  });
});

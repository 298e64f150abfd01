// How reading an upload answers multipart bodies that break formidable's limits or put a part in
// the wrong form, over a real listener with a real work folder: each is a 400 that says what was wrong.
import { getMaxListeners } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { WorkDirs } from '../storage/work-dirs.js';
import { errorEnvelope } from './middleware/error-envelope.js';
import { requestId } from './middleware/request-id.js';
import { type PartsSpec, readUpload } from './read-upload.js';
import type { AppState } from './state.js';

const MiB = 1024 * 1024;
const spec: PartsSpec = {
  summary: 'POST /test takes 2 to 20 PDFs in the repeated part `files[]` and optionally `ranges`',
  files: ['files[]'],
  fields: ['ranges'],
};

let dataDir: string;
let server: Server;
let base: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'pdn-uploads-'));
  const workDirs = await WorkDirs.open(dataDir);
  const app = new Koa<AppState>();
  app.use(requestId(createLogger('quiet')));
  app.use(errorEnvelope(createLogger('quiet')));
  const limits = { free: 10 * MiB, premium: 100 * MiB, business: 250 * MiB, enterprise: 1024 * MiB };
  const pace = { minBytesPerSecond: 1024, windowMs: 20_000 };
  app.use((ctx) =>
    readUpload(ctx, 'premium', spec, { workDirs, uploadLimits: limits, uploadPace: pace }, async (upload) => {
      ctx.body = {
        ok: true,
        abortListeners: getMaxListeners(upload.signal),
        files: [...(upload.files.get('files[]') ?? [])].map((file) => `${file.name}:${file.size}`),
        fields: Object.fromEntries(upload.fields),
      };
    }),
  );
  server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await rm(dataDir, { recursive: true, force: true });
});

const pdf = () => new Blob(['%PDF-1.7 tiny'], { type: 'application/pdf' });

async function send(
  given: FormData | RequestInit,
): Promise<{ status: number; code: string; message: string }> {
  const res = await fetch(base, given instanceof FormData ? { method: 'POST', body: given } : given);
  const body = (await res.json()) as { error: { code: string; message: string } };
  return { status: res.status, ...body.error };
}

/** A multipart body written by hand, for part headers FormData never writes. */
function rawMultipart(...parts: { headers: string[]; content: string }[]): RequestInit {
  const boundary = 'pdn-test-boundary';
  const body =
    parts.map((part) => `--${boundary}\r\n${part.headers.join('\r\n')}\r\n\r\n${part.content}\r\n`).join('') +
    `--${boundary}--\r\n`;
  return { method: 'POST', body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

const cases: [string, { given: () => FormData | RequestInit; want: RegExp }][] = [
  [
    'a text field over the fields size limit (not a 413 blaming the plan)',
    {
      given: () => {
        const form = new FormData();
        form.append('ranges', '1,'.repeat(35_000));
        return form;
      },
      want: /text fields may hold at most 64 KiB in all/,
    },
  ],
  [
    '65 file parts (formidable maxFiles)',
    {
      given: () => {
        const form = new FormData();
        for (let i = 0; i < 65; i += 1) form.append('files[]', pdf(), `${i}.pdf`);
        return form;
      },
      want: /Too many files: more than 64 file parts were sent\. POST \/test takes 2 to 20 PDFs/,
    },
  ],
  [
    '17 text fields (formidable maxFields)',
    {
      given: () => {
        const form = new FormData();
        for (let i = 0; i < 17; i += 1) form.append('ranges', '1');
        return form;
      },
      want: /Too many text fields: more than 16 were sent\./,
    },
  ],
  [
    'a text field sent as a file',
    {
      given: () => {
        const form = new FormData();
        form.append('ranges', pdf(), 'x.pdf');
        return form;
      },
      want: /The part `ranges` must be a text field \(no filename\), not a file\./,
    },
  ],
  [
    'a file part sent as a text field',
    {
      given: () => {
        const form = new FormData();
        form.append('files[]', '%PDF-1.7 not a file');
        return form;
      },
      want: /The part `files\[\]` must be a file \(a part with a filename\), not a text field\./,
    },
  ],
  [
    'an undeclared file part',
    {
      given: () => {
        const form = new FormData();
        form.append('files[]', pdf(), 'a.pdf');
        form.append('extra', pdf(), 'b.pdf');
        return form;
      },
      want: /^Unexpected part `extra`\. POST \/test takes/,
    },
  ],
  [
    'an undeclared text field',
    {
      given: () => {
        const form = new FormData();
        form.append('language', 'eng');
        return form;
      },
      want: /^Unexpected part `language`\./,
    },
  ],
  [
    'an unnamed part',
    {
      given: () => rawMultipart({ headers: ['Content-Disposition: form-data'], content: 'x' }),
      want: /^Unexpected part `\(unnamed\)`\./,
    },
  ],
];

describe('uploads middleware', () => {
  it.each(cases)('refuses %s with 400 invalid_input', async (_name, { given, want }) => {
    const answer = await send(given());
    expect(answer).toEqual({ status: 400, code: 'invalid_input', message: expect.stringMatching(want) });
  });
});

describe('text fields', () => {
  // Swagger UI, HTML forms and many clients send the fields left empty too: each reads as not sent.
  it.each<[string, string[], Record<string, string[]>]>([
    ['an empty field', [''], {}],
    ['an empty and a filled one', ['', '1-2'], { ranges: ['1-2'] }],
    ['white space, which is a value', [' '], { ranges: [' '] }],
    ['a value', ['1,3'], { ranges: ['1,3'] }],
  ])('%s', async (_name, values, want) => {
    const form = new FormData();
    form.append('files[]', pdf(), 'a.pdf');
    for (const value of values) form.append('ranges', value);
    const res = await fetch(base, { method: 'POST', body: form });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { fields: unknown }).fields).toEqual(want);
  });
});

describe('file parts', () => {
  // Python requests sends `files={'f': open(...)}` parts without a Content-Type.
  it('takes a part with a filename and no Content-Type as a file', async () => {
    const res = await fetch(
      base,
      rawMultipart(
        {
          headers: ['Content-Disposition: form-data; name="files[]"; filename="a.pdf"'],
          content: '%PDF-1.7 a',
        },
        { headers: ['Content-Disposition: form-data; name="files[]"; filename=""'], content: '%PDF-1.7 bb' },
        // formidable reads neither of these names; the parts are files all the same.
        {
          headers: [
            'Content-Disposition: form-data; name="files[]"; filename*=UTF-8\'\'r%C3%A9sum%C3%A9.pdf',
          ],
          content: '%PDF-1.7 ccc',
        },
        {
          headers: ['Content-Disposition: form-data; name="files[]"; filename="a\u2028b.pdf"'],
          content: '%PDF-1.7 d',
        },
      ),
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { files: string[] }).files).toEqual(['a.pdf:10', ':11', ':12', ':10']);
  });

  it('refuses an undeclared part as soon as it begins, without reading the rest of the body', async () => {
    // node:http, not fetch: fetch reads no answer before its request body has ended, and this one never does.
    const req = request(base, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
    });
    req.on('error', () => {});
    req.write('--b\r\nContent-Disposition: form-data; name="unused"; filename="big.bin"\r\n\r\n');
    const filler = Buffer.alloc(64 * 1024);
    const answered = new Promise<IncomingMessage>((resolve) => req.once('response', resolve));
    let stop = false;
    void answered.then(() => {
      stop = true;
    });
    const pump = async () => {
      while (!stop && !req.destroyed) {
        if (!req.write(filler)) await new Promise((resolve) => req.once('drain', resolve));
      }
    };
    void pump();
    const res = await answered;
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    req.destroy();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error: { message: string } };
    expect(res.statusCode).toBe(400);
    expect(body.error.message).toMatch(/Unexpected part `unused`/);
  });
});

describe('the abort signal handed to the engines', () => {
  it('allows one listener per tool run of a 20-file merge without a leak warning', async () => {
    const form = new FormData();
    for (let i = 0; i < 20; i++) form.append('files[]', pdf(), `f${i}.pdf`);
    const res = await fetch(base, { method: 'POST', body: form });
    const body = (await res.json()) as { abortListeners: number };
    expect(res.status).toBe(200);
    expect(body.abortListeners).toBeGreaterThanOrEqual(20);
  });
});

// How the uploads middleware answers multipart bodies that break formidable's limits or put a part in
// the wrong form, over a real listener with a real work folder: each is a 400 that says what was wrong.
import { getMaxListeners } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../logger.js';
import { WorkDirs } from '../../storage/work-dirs.js';
import type { AppState } from '../state.js';
import { errorEnvelope } from './error-envelope.js';
import { requestId } from './request-id.js';
import { type PartsSpec, uploads } from './uploads.js';

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
  app.use(errorEnvelope());
  app.use(async (ctx, next) => {
    ctx.state.principal = { userId: 1, userName: 'ada', plan: 'premium', keyId: 'k', keyKind: 'test' };
    await next();
  });
  const limits = { free: 10 * MiB, premium: 100 * MiB, business: 250 * MiB, enterprise: 1024 * MiB };
  app.use(uploads(spec, { workDirs, uploadLimits: limits }));
  app.use((ctx) => {
    const signal = ctx.state.upload?.signal;
    ctx.body = { ok: true, abortListeners: signal ? getMaxListeners(signal) : 0 };
  });
  server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await rm(dataDir, { recursive: true, force: true });
});

const pdf = () => new Blob(['%PDF-1.7 tiny'], { type: 'application/pdf' });

async function send(form: FormData): Promise<{ status: number; code: string; message: string }> {
  const res = await fetch(base, { method: 'POST', body: form });
  const body = (await res.json()) as { error: { code: string; message: string } };
  return { status: res.status, ...body.error };
}

const cases: [string, { given: () => FormData; want: RegExp }][] = [
  [
    'a text field over the fields size limit (QA: 413 blaming the plan)',
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
];

describe('uploads middleware', () => {
  it.each(cases)('refuses %s with 400 invalid_input', async (_name, { given, want }) => {
    const answer = await send(given());
    expect(answer).toEqual({ status: 400, code: 'invalid_input', message: expect.stringMatching(want) });
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

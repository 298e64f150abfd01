// Back-pressure with one admission order (openapi.yaml, "Admission order and back-pressure"): with as
// many synchronous calls in progress as its plan allows, a user's next synchronous call is answered
// `503 server_busy` at once, before its body is read and without `100 Continue` (over node:http, a raw
// socket and curl, which then sends none of its body), uncounted, and on a connection it keeps when
// the call's small body came with its head; its asynchronous one is accepted as a queued job; a call
// without a valid key hears 401 first, and a user whose hour is spent 429. The calls in progress are
// calls still uploading (a call is in progress from admission to answer, its upload included), held
// for as long as the test needs without loading the machine. A body that stops keeping the minimum
// upload pace (openapi.yaml, "Upload limits") is cut `408 request_timeout`, freeing its place.
import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { labelledPdf } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertExchange } from './contract/checked-fetch.js';
import { file, form } from './harness/form.js';
import { HOLDING_ENV, holdAPlace } from './harness/hold-a-place.js';
import { waitForJob } from './harness/jobs.js';
import { multipartBody, openSocket, parseResponses, requestHead } from './harness/raw-request.js';
import { slowUpload } from './harness/slow-upload.js';
import { streamUpload } from './harness/stream-upload.js';
import { missing } from './harness/tools.js';
import { useServer } from './harness/use-server.js';

const execFileAsync = promisify(execFile);

/** A Premium user's synchronous calls in progress at once (plans.ts). */
const PREMIUM_CALLS = 20;
const engines = { PDN_PDF_ENGINE: 'pdf-lib' };
const ctx = useServer({ env: { ...engines, ...HOLDING_ENV } });
const holders: Socket[] = [];
let key: string;

async function twoPdfs(): Promise<FormData> {
  return form(file('files[]', await labelledPdf('A', 1)), file('files[]', await labelledPdf('B', 1)));
}

describe('a body slower than the minimum upload pace', () => {
  // 2 KiB in each 2-second window.
  const paced = useServer({
    env: { ...engines, PDN_UPLOAD_WINDOW_SECONDS: '2', PDN_MIN_UPLOAD_BYTES_PER_SECOND: '1024' },
  });

  it('is cut 408 request_timeout, trickled or never sent after 100 Continue, and frees its place', async () => {
    const slowKey = await paced.server.createKey({ user: 'trickler', plan: 'free' });
    const otherKey = await paced.server.createKey({ user: 'other', plan: 'free' });
    const trickle = await slowUpload(paced.server.baseUrl, slowKey, 'trickle');
    const stall = await slowUpload(paced.server.baseUrl, slowKey, 'stall');
    await Promise.all([trickle.admitted, stall.admitted]);
    for (const answer of await Promise.all([trickle.answer, stall.answer])) {
      expect(answer.status).toBe(408);
      expect(answer.json?.error?.code).toBe('request_timeout');
      expect(answer.json?.error?.message).toMatch(/too slowly/);
      expect(answer.headers.get('connection')).toBe('close');
    }
    // Both places were freed when the answers went out.
    const res = await paced.call('/api/v1/merge', { key: otherKey, body: await twoPdfs() });
    expect(res.status).toBe(200);
  });
});

beforeAll(async () => {
  key = await ctx.server.createKey({ user: 'caller', plan: 'premium' });
  for (let i = 0; i < PREMIUM_CALLS; i += 1) holders.push(await holdAPlace(ctx.server.baseUrl, key));
});

afterAll(() => {
  for (const socket of holders) socket.destroy();
});

describe("with as many of a user's synchronous calls in progress as the plan allows", () => {
  it('answers a synchronous call 503 server_busy with the retry hint, and does not count it', async () => {
    const before = await ctx.call('/api/v1/account', { key });
    const remaining = before.headers.get('x-ratelimit-remaining');
    const res = await ctx.call<{ error: { code: string; message: string; retry_after_seconds?: number } }>(
      '/api/v1/merge',
      { key, body: await twoPdfs() },
    );
    expect(res.status).toBe(503);
    expect(res.json.error.code).toBe('server_busy');
    expect(res.json.error.message).toMatch(/20 synchronous calls in progress.*Prefer: respond-async/);
    expect(res.json.error.retry_after_seconds).toBeGreaterThan(0);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(res.headers.get('x-ratelimit-remaining')).toBe(remaining);
    const after = await ctx.call('/api/v1/account', { key });
    expect(after.headers.get('x-ratelimit-remaining')).toBe(remaining);
  });

  it('refuses a call sent with Expect: 100-continue without asking for its body', async () => {
    const res = await streamUpload(ctx.server.url('/api/v1/merge'), {
      key,
      partName: 'files[]',
      fileBytes: 1024 * 1024,
      declareLength: true,
      expectContinue: true,
    });
    expect(res.status).toBe(503);
    expect(res.json?.error?.code).toBe('server_busy');
    expect(res.bytesSent).toBe(0);
  });

  it('keeps the connection of a refused call whose small body came with its head, for the next call', async () => {
    const { contentType, body } = multipartBody({ part: 'files[]', filename: 'a.pdf', filler: 1024 });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = () =>
      new Promise<{ status: number; connection: string | undefined; reused: boolean }>((resolve, reject) => {
        const req = request(
          ctx.server.url('/api/v1/merge'),
          {
            method: 'POST',
            agent,
            headers: {
              authorization: `Bearer ${key}`,
              'content-type': contentType,
              'content-length': String(body.length),
            },
          },
          (res) => {
            res.resume();
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                connection: res.headers.connection,
                reused: req.reusedSocket,
              }),
            );
          },
        );
        req.on('error', reject);
        // Head and body in one write, as a client sends a small body whose length it knows.
        req.end(body);
      });
    try {
      expect(await send()).toEqual({ status: 503, connection: 'keep-alive', reused: false });
      expect(await send()).toEqual({ status: 503, connection: 'keep-alive', reused: true });
    } finally {
      agent.destroy();
    }
  });

  it('refuses it on a raw socket from the head alone: 503 first, no 100 Continue before it', async () => {
    const { contentType, body } = multipartBody({ part: 'files[]', filename: 'a.pdf', filler: 1024 * 1024 });
    const socket = await openSocket(ctx.server.baseUrl);
    const received = new Promise<Buffer>((resolve, reject) => {
      let raw = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        raw = Buffer.concat([raw, chunk]);
        const end = raw.indexOf('\r\n\r\n');
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(raw.toString('latin1'))?.[1] ?? Number.NaN);
        if (end >= 0 && raw.length >= end + 4 + length) resolve(raw);
      });
      socket.on('error', reject);
    });
    socket.write(
      requestHead('POST', '/api/v1/merge', {
        Host: new URL(ctx.server.baseUrl).host,
        Authorization: `Bearer ${key}`,
        'Content-Type': contentType,
        'Content-Length': String(body.length),
        Expect: '100-continue',
      }),
    );
    const raw = await received;
    socket.destroy();
    expect(raw.toString('latin1')).toMatch(/^HTTP\/1\.1 503 /);
    const [answer] = parseResponses(raw);
    assertExchange({
      method: 'POST',
      url: ctx.server.url('/api/v1/merge'),
      ...(answer as NonNullable<typeof answer>),
    });
    expect(answer?.json?.error?.code).toBe('server_busy');
  });

  it.skipIf(missing('curl', 'the 503 as curl sees it'))(
    'refuses it to curl, which then sends none of its body',
    async () => {
      const upload = join(ctx.server.rootDir, 'curl-busy.pdf');
      const answer = join(ctx.server.rootDir, 'curl-busy.json');
      try {
        await writeFile(upload, await labelledPdf('C', 40));
        const { stdout } = await execFileAsync('curl', [
          '--silent',
          '--show-error',
          '-H',
          `Authorization: Bearer ${key}`,
          '-H',
          'Expect: 100-continue',
          // curl sends the body anyway if no answer comes within 1 s (its default): wait for the answer.
          '--expect100-timeout',
          '600',
          '-F',
          `files[]=@${upload};type=application/pdf`,
          '--output',
          answer,
          '--write-out',
          '%{http_code} %{size_upload}',
          ctx.server.url('/api/v1/merge'),
        ]);
        expect(stdout).toBe('503 0');
        expect(JSON.parse(await readFile(answer, 'utf8')).error.code).toBe('server_busy');
      } finally {
        await rm(upload, { force: true });
        await rm(answer, { force: true });
      }
    },
  );

  it('answers a call without a valid key 401 first', async () => {
    const res = await ctx.call<{ error: { code: string } }>('/api/v1/merge', {
      key: 'pdn_live_00000000000000000000000000000000',
      body: await twoPdfs(),
    });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('unauthorized');
  });

  it("serves another user's synchronous call meanwhile", async () => {
    const other = await ctx.server.createKey({ user: 'other', plan: 'free' });
    expect((await ctx.call('/api/v1/merge', { key: other, body: await twoPdfs() })).status).toBe(200);
  });

  it('accepts an asynchronous submission as a queued job', async () => {
    const res = await ctx.call<{ data: { id: string } }>('/api/v1/merge', {
      key,
      headers: { Prefer: 'respond-async' },
      body: await twoPdfs(),
    });
    expect(res.status).toBe(202);
    // Until it ends, however long that takes here: one read waiting 10 s at most was a deadline.
    expect((await waitForJob(ctx, key, res.json.data.id)).status).toBe('succeeded');
  });

  it('tells a user whose hour is spent 429 rate_limited first', async () => {
    const free = await ctx.server.createKey({ user: 'spent', plan: 'free' });
    // A refused call (400: no files) still counts.
    for (let i = 0; i < 10; i += 1) {
      const spent = await ctx.call('/api/v1/merge', {
        key: free,
        headers: { Prefer: 'respond-async' },
        body: form(),
      });
      expect(spent.status).toBe(400);
    }
    const res = await ctx.call<{ error: { code: string } }>('/api/v1/merge', {
      key: free,
      body: await twoPdfs(),
    });
    expect(res.status).toBe(429);
    expect(res.json.error.code).toBe('rate_limited');
  });

  it('counts the refusals for GET /metrics', async () => {
    const res = await ctx.call('/metrics');
    expect(res.bytes.toString('utf8')).toMatch(
      /^pdn_admission_refusals_total\{code="server_busy",reason="calls"\} [1-9]/m,
    );
  });

  it('admits synchronous calls again once the places free', async () => {
    for (const socket of holders.splice(0)) socket.destroy();
    // The server sees the holders go as their sockets close; until then it may still be full.
    let res = await ctx.call('/api/v1/merge', { key, body: await twoPdfs() });
    for (let tries = 0; res.status === 503 && tries < 100; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      res = await ctx.call('/api/v1/merge', { key, body: await twoPdfs() });
    }
    expect(res.status).toBe(200);
  });
});

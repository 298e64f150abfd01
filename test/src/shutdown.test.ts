// SIGTERM: it used to cut requests in flight after 5 s with a dropped connection.
// The real binary gets a real signal while an upload is under way: it stops accepting connections at
// once, finishes the request when the rest of the body comes within the grace period
// (PDN_SHUTDOWN_GRACE_MS), answers `503 service_unavailable` when it does not, and exits 0 either way,
// leaving no work folder; a job whose tools run past the grace period is answered 503 and its tools
// stopped. Readiness is false from the signal on, while work in flight finishes, and queued
// asynchronous jobs stay queued for the next process, which runs them. With a drain delay
// (PDN_DRAIN_DELAY_MS) readiness is false while requests are still served, for a balancer to notice,
// before connections are refused.

import { request } from 'node:http';
import { connect } from 'node:net';
import { embeddedFontPdf, labelledPdf } from '@pdn/fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import { assertExchange } from './contract/checked-fetch.js';
import { file, form } from './harness/form.js';
import { requestFolders } from './harness/leftovers.js';
import { processesMentioning } from './harness/processes.js';
import { multipartBody, openSocket, parseResponses } from './harness/raw-request.js';
import { startServer, type TestServer } from './harness/server.js';
import { missing } from './harness/tools.js';

let server: TestServer | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

interface Answer {
  status: number;
  headers: Headers;
  json: { error?: { code: string; retry_after_seconds?: number } };
}

/**
 * A compress upload announced with `Expect: 100-continue`, so the server's "100 Continue" proves the
 * request is in its hands before the signal is sent. `sendRest` writes the second half of the body.
 */
async function uploadInFlight(
  target: TestServer,
  key: string,
): Promise<{ sendRest: () => void; answer: Promise<Answer> }> {
  const pdf = Buffer.from(await labelledPdf('S', 3));
  const { contentType, body } = multipartBody({ part: 'file', filename: 'stop.pdf', filler: 0 });
  // The harness body is a PDF header and spaces; put a real PDF in its place.
  const full = Buffer.from(body.toString('latin1').replace('%PDF-1.7\n', pdf.toString('latin1')), 'latin1');
  const url = target.url('/api/v1/compress');
  const req = request(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': contentType,
      'content-length': String(full.length),
      expect: '100-continue',
    },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers))
          if (typeof value === 'string') headers.set(name, value);
        const bytes = Buffer.concat(chunks);
        const status = res.statusCode ?? 0;
        try {
          assertExchange({ method: 'POST', url, status, headers, body: bytes });
          resolve({ status, headers, json: JSON.parse(bytes.toString('utf8')) });
        } catch (error) {
          reject(error);
        }
      });
    });
    req.on('error', reject);
  });
  await new Promise<void>((resolve) => {
    req.once('continue', () => {
      req.write(full.subarray(0, full.length / 2));
      resolve();
    });
    req.flushHeaders();
  });
  return { sendRest: () => req.end(full.subarray(full.length / 2)), answer };
}

/** Resolves once a new connection to the server is refused (bounded; throws if it never is). */
async function refusesConnections(baseUrl: string): Promise<void> {
  const { hostname, port } = new URL(baseUrl);
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(port), hostname);
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
    });
    if (refused) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the stopping server still accepts connections');
}

function workFolders(target: TestServer): Promise<string[]> {
  return requestFolders(target.dataDir);
}

describe('SIGTERM', () => {
  it('finishes a request in flight within the grace period, refusing new connections meanwhile', async () => {
    server = await startServer({ env: { PDN_SHUTDOWN_GRACE_MS: '60000', PDN_COMPRESS_ENGINE: 'pdf-lib' } });
    const upload = await uploadInFlight(server, await server.createKey({ user: 'stay' }));
    const exited = server.signal('SIGTERM');
    await refusesConnections(server.baseUrl);
    upload.sendRest();
    const answer = await upload.answer;
    expect(answer.status).toBe(200);
    expect(answer.headers.get('connection')).toBe('close');
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(server.output).toContain('pdn server stopping on SIGTERM');
    expect(await workFolders(server)).toEqual([]);
  });

  it('answers 503 service_unavailable for what it cannot finish in time, then exits', async () => {
    server = await startServer({ env: { PDN_SHUTDOWN_GRACE_MS: '1000' } });
    const upload = await uploadInFlight(server, await server.createKey({ user: 'late' }));
    const exited = server.signal('SIGTERM');
    // The rest of the body never comes.
    const answer = await upload.answer;
    expect(answer.status).toBe(503);
    expect(answer.json.error).toMatchObject({ code: 'service_unavailable' });
    expect(answer.json.error?.retry_after_seconds).toBeGreaterThan(0);
    expect(answer.headers.get('connection')).toBe('close');
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(await workFolders(server)).toEqual([]);
  });
});

describe.skipIf(missing('ghostscript', 'a running job cut off by the grace period'))(
  'SIGTERM during a running job',
  () => {
    it('answers 503 service_unavailable when the grace period ends before the job, and stops its tools', async () => {
      const target = await startServer({
        env: { PDN_SHUTDOWN_GRACE_MS: '200', PDN_COMPRESS_ENGINE: 'ghostscript' },
      });
      server = target;
      const key = await target.createKey({ user: 'cut', plan: 'premium' });
      // Ghostscript on 120 pages of embedded fonts: seconds, far beyond the grace period.
      const body = form(file('file', await embeddedFontPdf({ pages: 120 }), 'fonts.pdf'));
      const answer = fetch(target.url('/api/v1/compress'), {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body,
      });
      const tools = () => processesMentioning(target.dataDir);
      // Judged on the look that found one: a compress runs a short qpdf before Ghostscript, and a
      // second look could fall between the two.
      let running = await tools();
      for (let tries = 0; running.length === 0 && tries < 600; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        running = await tools();
      }
      expect(running).not.toEqual([]);
      const exited = target.signal('SIGTERM');
      const res = await answer;
      const bytes = Buffer.from(await res.arrayBuffer());
      assertExchange({
        method: 'POST',
        url: target.url('/api/v1/compress'),
        status: res.status,
        headers: res.headers,
        body: bytes,
      });
      expect(res.status).toBe(503);
      expect(JSON.parse(bytes.toString('utf8')).error.code).toBe('service_unavailable');
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(await tools()).toEqual([]);
      expect(await workFolders(target)).toEqual([]);
    });
  },
);

describe('SIGTERM, as a balancer and the job queue see it', () => {
  it('answers /readyz 503 from the signal on, while a request in flight finishes', async () => {
    server = await startServer({ env: { PDN_SHUTDOWN_GRACE_MS: '60000', PDN_COMPRESS_ENGINE: 'pdf-lib' } });
    const upload = await uploadInFlight(server, await server.createKey({ user: 'probed' }));
    // A probe whose request has begun before the signal: its connection is busy, so it stays open
    // when the server stops accepting new ones, and the request completes after the signal.
    const probe = await openSocket(server.baseUrl);
    const received: Buffer[] = [];
    const probeClosed = new Promise<void>((resolve) => probe.on('close', () => resolve()));
    probe.on('data', (chunk: Buffer) => received.push(chunk));
    probe.write(`GET /readyz HTTP/1.1\r\nHost: ${new URL(server.baseUrl).host}\r\n`);
    const exited = server.signal('SIGTERM');
    await refusesConnections(server.baseUrl);
    probe.write('\r\n');
    await probeClosed;
    const [ready] = parseResponses(Buffer.concat(received));
    expect(ready?.status).toBe(503);
    expect(ready?.json?.error?.code).toBe('service_unavailable');
    assertExchange({ method: 'GET', url: server.url('/readyz'), ...(ready as NonNullable<typeof ready>) });
    // The work in flight was not disturbed by the probe's answer: it finishes, then the server exits.
    upload.sendRest();
    expect((await upload.answer).status).toBe(200);
    expect(await exited).toEqual({ code: 0, signal: null });
  });

  it('answers /readyz 503 but still serves for the drain delay, then refuses connections', async () => {
    // Long enough for a few requests on a loaded machine; the stop waits it out whatever happens.
    server = await startServer({ env: { PDN_DRAIN_DELAY_MS: '4000' } });
    const target = server;
    const exited = target.signal('SIGTERM');
    let ready = await fetch(target.url('/readyz'));
    for (let tries = 0; ready.status === 200 && tries < 100; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      ready = await fetch(target.url('/readyz'));
    }
    const readyBody = Buffer.from(await ready.arrayBuffer());
    assertExchange({
      method: 'GET',
      url: target.url('/readyz'),
      status: ready.status,
      headers: ready.headers,
      body: readyBody,
    });
    expect(ready.status).toBe(503);
    expect(JSON.parse(readyBody.toString('utf8')).error.code).toBe('service_unavailable');
    // Not ready, yet serving: a balancer that has not noticed yet loses nothing.
    const health = await fetch(target.url('/healthz'));
    await health.arrayBuffer();
    expect(health.status).toBe(200);
    expect(health.headers.get('connection')).toBe('close');
    await refusesConnections(target.baseUrl);
    expect(await exited).toEqual({ code: 0, signal: null });
  });

  it('leaves queued asynchronous jobs queued, and the next process runs them', async () => {
    // One job at a time, so submissions queue behind the one running.
    const target = await startServer({ env: { PDN_JOB_CONCURRENCY: '1', PDN_PDF_ENGINE: 'pdf-lib' } });
    server = target;
    const key = await target.createKey({ user: 'queued', plan: 'premium' });
    const big = await labelledPdf('Q', 50);
    const submit = async () => {
      const body = new FormData();
      for (let i = 0; i < 20; i += 1)
        body.append('files[]', new Blob([big], { type: 'application/pdf' }), `q${i}.pdf`);
      const res = await fetch(target.url('/api/v1/merge'), {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, prefer: 'respond-async' },
        body,
      });
      expect(res.status).toBe(202);
      return ((await res.json()) as { data: { id: string } }).data.id;
    };
    const ids = await Promise.all(Array.from({ length: 4 }, submit));
    expect(await target.signal('SIGTERM')).toEqual({ code: 0, signal: null });
    const restartedAt = new Date();
    await target.restart();
    const ended: { status: string; started_at: string }[] = [];
    for (const id of ids) {
      let job = { status: 'queued', started_at: '' };
      for (
        let polls = 0;
        polls < 30 && !['succeeded', 'failed', 'canceled'].includes(job.status);
        polls += 1
      ) {
        const res = await fetch(target.url(`/api/v1/jobs/${id}`), {
          headers: { authorization: `Bearer ${key}`, prefer: 'wait=10' },
        });
        job = ((await res.json()) as { data: typeof job }).data;
      }
      ended.push(job);
    }
    expect(ended.map((job) => job.status)).toEqual(ids.map(() => 'succeeded'));
    // Four 1000-page merges one at a time do not all end in the moment between the last 202 and the
    // signal: at least the last one was left queued and started in the new process.
    expect(ended.some((job) => new Date(job.started_at) >= restartedAt)).toBe(true);
  });
});

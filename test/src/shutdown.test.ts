// SIGTERM (issue #11, item 9): it used to cut requests in flight after 5 s with a dropped connection.
// The real binary gets a real signal while an upload is under way: it stops accepting connections at
// once, finishes the request when the rest of the body comes within the grace period
// (PDN_SHUTDOWN_GRACE_MS), answers `503 service_unavailable` when it does not, and exits 0 either way,
// leaving no work folder.

import { readdir } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { labelledPdf } from '@pdn/fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import { assertExchange } from './contract/checked-fetch.js';
import { multipartBody } from './harness/raw-request.js';
import { startServer, type TestServer } from './harness/server.js';

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

async function workFolders(target: TestServer): Promise<string[]> {
  return readdir(join(target.dataDir, 'tmp'));
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

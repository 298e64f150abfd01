// The server survives a stream of garbage uploads (never a 500,
// never a crash, no temp files left): seeded random bytes under every part name to every endpoint,
// bodies that are not multipart or are broken multipart, and raw sockets that speak no HTTP at all.
// Afterwards the server still serves real work and nothing is left on disk.
import { connect } from 'node:net';
import { createRandom, labelledPdf } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertExchange } from './contract/checked-fetch.js';
import { field, file, form } from './harness/form.js';
import { filesLeftSince, listFiles } from './harness/leftovers.js';
import { useServer } from './harness/use-server.js';

// Simultaneous synchronous calls, never refused as busy (back-pressure.test.ts): the answers are the inputs'.
const ctx = useServer();
const ENDPOINTS = ['/api/v1/compress', '/api/v1/merge', '/api/v1/split', '/api/v1/ocr'];
const PART_NAMES = ['file', 'files[]', 'image', 'ranges', 'level', 'language', 'x'];
let key: string;
let before: Set<string>;

beforeAll(async () => {
  key = await ctx.server.createKey({ user: 'garbage', plan: 'enterprise' });
  before = await listFiles(ctx.server);
});

/** Client errors only: garbage is the client's fault, never a 500. */
const CLIENT_ERRORS = [400, 413];

describe('garbage uploads', () => {
  it('random bytes under random part names to every endpoint are all client errors', async () => {
    const random = createRandom(2026);
    const statuses: number[] = [];
    for (let round = 0; round < 12; round += 1) {
      await Promise.all(
        ENDPOINTS.map(async (path) => {
          const parts = Array.from({ length: random.between(1, 3) }, () => {
            const bytes = new Uint8Array(random.between(0, 64 * 1024)).map(() => random.int(256));
            // Half the files pretend to be PDFs or images by their first bytes, to get past sniffing.
            if (random.next() < 0.5)
              bytes.set(random.pick([Buffer.from('%PDF-1.7\n'), Buffer.from('\x89PNG\r\n\x1a\n')]));
            return file(
              random.pick(PART_NAMES),
              bytes,
              random.pick(['a.pdf', 'b.png', '', '../../x.pdf', 'c\0.pdf']),
            );
          });
          const res = await ctx.call(path, { key, body: form(...parts) });
          statuses.push(res.status);
        }),
      );
    }
    expect(statuses.filter((status) => !CLIENT_ERRORS.includes(status))).toEqual([]);
  });

  it.each<[string, Record<string, string>, string]>([
    ['JSON', { 'content-type': 'application/json' }, '{"file": "JVBERi0xLjcK"}'],
    ['plain text', { 'content-type': 'text/plain' }, 'hello'],
    ['a URL-encoded form', { 'content-type': 'application/x-www-form-urlencoded' }, 'file=a.pdf&ranges=1'],
    ['multipart without a boundary', { 'content-type': 'multipart/form-data' }, '--x\r\n\r\n'],
    [
      'multipart that never ends',
      { 'content-type': 'multipart/form-data; boundary=b' },
      '--b\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.7\n',
    ],
    [
      'multipart with a broken part header',
      { 'content-type': 'multipart/form-data; boundary=b' },
      '--b\r\nContent-Dispositio\r\n\r\nxx\r\n--b--\r\n',
    ],
    [
      'a wrong boundary',
      { 'content-type': 'multipart/form-data; boundary=b' },
      '--c\r\nContent-Disposition: form-data; name="ranges"\r\n\r\n1\r\n--c--\r\n',
    ],
    ['an empty body', { 'content-type': 'multipart/form-data; boundary=b' }, ''],
  ])('%s is a client error on every endpoint', async (_name, headers, body) => {
    for (const path of ENDPOINTS) {
      const res = await ctx.call(path, { key, headers, body });
      expect(CLIENT_ERRORS, `${path}: ${res.bytes.toString('utf8')}`).toContain(res.status);
    }
  });

  it('a huge text field and a thousand parts are client errors', async () => {
    const pdf = await labelledPdf('G', 1);
    const huge = await ctx.call('/api/v1/split', {
      key,
      body: form(file('file', pdf), field('ranges', '1,'.repeat(500_000))),
    });
    expect(CLIENT_ERRORS).toContain(huge.status);
    const many = Array.from({ length: 1000 }, (_, i) => field(`f${i}`, 'x'));
    const crowded = await ctx.call('/api/v1/compress', { key, body: form(file('file', pdf), ...many) });
    expect([200, ...CLIENT_ERRORS]).toContain(crowded.status);
  });

  /** Writes `payload` on a fresh connection and collects what comes back until close or `waitMs`. */
  function rawExchange(payload: string | Buffer, waitMs: number): Promise<string> {
    const { port } = new URL(ctx.server.baseUrl);
    return new Promise((resolve) => {
      let received = '';
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(payload));
      const timer = setTimeout(() => socket.destroy(), waitMs);
      socket.on('data', (chunk) => {
        received += chunk.toString('latin1');
      });
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(received);
      });
      socket.on('error', () => undefined);
    });
  }

  // "Errors from the HTTP layer" (OpenAPI description): what Node's parser refuses still gets the
  // envelope with X-Request-Id, and the connection is closed.
  it.each<[string, string | Buffer]>([
    ['a request line that is not HTTP', 'GARBAGE\r\n\r\n'],
    ['binary noise', Buffer.from(new Uint8Array(4096).map((_, i) => (i * 31) & 0xff))],
  ])('%s gets a 400 envelope and a closed connection', async (_name, payload) => {
    const raw = await rawExchange(payload, 10_000);
    const [head = '', body = ''] = raw.split('\r\n\r\n');
    const [statusLine = '', ...headerLines] = head.split('\r\n');
    expect(statusLine).toMatch(/^HTTP\/1\.1 400 /);
    const headers = new Headers(
      headerLines.map((line): [string, string] => [
        line.slice(0, line.indexOf(':')),
        line.slice(line.indexOf(':') + 1).trim(),
      ]),
    );
    assertExchange({ method: 'GET', url: '/', status: 400, headers, body: Buffer.from(body, 'latin1') });
  });

  it('clients that stop mid-request and hang up do not hurt the server', async () => {
    for (const payload of [
      `POST /api/v1/compress HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n--b\r\n`,
      `POST /api/v1/merge HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
    ]) {
      await rawExchange(payload, 200);
    }
    expect((await ctx.call('/healthz')).status).toBe(200);
  });

  it('left no files behind', async () => {
    expect(await filesLeftSince(ctx.server, before)).toEqual([]);
  });

  it('still serves real work afterwards', async () => {
    const pdf = await labelledPdf('H', 2);
    const res = await ctx.call('/api/v1/merge', {
      key,
      body: form(file('files[]', pdf), file('files[]', pdf)),
    });
    expect(res.status).toBe(200);
    expect((await ctx.call('/healthz')).status).toBe(200);
  });
});

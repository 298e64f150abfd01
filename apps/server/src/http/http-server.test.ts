// What clients get when Node's HTTP parser refuses their request before the app sees it: the spec's
// envelope and an X-Request-Id, over a real listener with raw sockets, since fetch cannot
// send malformed HTTP.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { clientErrorAnswer } from './client-error.js';
import { createHttpServer } from './http-server.js';
import type { AppState } from './state.js';

let server: Server;
let port: number;

beforeAll(async () => {
  const app = new Koa<AppState>();
  app.use((ctx) => {
    ctx.body = { ok: true };
  });
  server = createHttpServer(app, createLogger('quiet'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

/** Writes `request` as is and reads everything until the server closes the connection. */
function raw(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}

function parse(response: string) {
  const [head = '', body = ''] = response.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = new Map(
    headerLines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) as unknown };
}

const cases: [string, { given: string; want: { status: number; code: string } }][] = [
  [
    'headers over the size limit',
    {
      given: `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      want: { status: 431, code: 'invalid_input' },
    },
  ],
  ['bytes that are not HTTP', { given: 'HELLO THERE\r\n\r\n', want: { status: 400, code: 'invalid_input' } }],
  [
    'a broken chunked body',
    {
      given: 'POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      want: { status: 400, code: 'invalid_input' },
    },
  ],
];

describe('requests the HTTP parser refuses', () => {
  it.each(cases)('answers %s with the error envelope and X-Request-Id', async (_name, { given, want }) => {
    const answer = parse(await raw(given));
    expect(answer.status).toBe(want.status);
    const requestId = answer.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(answer.body).toEqual({
      error: { code: want.code, message: expect.any(String) },
      meta: { request_id: requestId },
    });
  });

  // Found by the fuzzer: the 400 for bytes after a whole request took that request's place.
  it('answers a whole request before refusing the bytes after it', async () => {
    const answer = await raw('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nxyz\r\n\r\n');
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(answer.match(/^HTTP\/1\.1 /gm)).toHaveLength(1);
    expect(parse(answer).body).toEqual({ ok: true });
  });

  // headersTimeout is 20 s and Node checks it every 30 s: too slow to provoke in a unit test.
  it('maps a request timeout to 408 request_timeout', () => {
    expect(clientErrorAnswer('ERR_HTTP_REQUEST_TIMEOUT')).toMatchObject({
      status: 408,
      code: 'request_timeout',
    });
  });
});

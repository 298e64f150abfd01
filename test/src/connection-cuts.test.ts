// Uploads cut by the client: 2000 TCP resets once left 2000 work folders and no
// access-log line, because a request destroyed while its work folder was being made left the multipart
// parser waiting forever. Real sockets are cut at each point of a request, by a reset and by an orderly
// close, many times over; every request must still get its log line and leave nothing on disk.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { filesLeftSince, listFiles } from './harness/leftovers.js';
import { multipartBody, requestHead, sendAndCut } from './harness/raw-request.js';
import { useServer } from './harness/use-server.js';

const ctx = useServer({ env: { PDN_LOG_LEVEL: 'info' } });
let key: string;

beforeAll(async () => {
  key = await ctx.server.createKey({ user: 'cutter', plan: 'enterprise' });
});

/**
 * Cuts per case: enough to land in every window of the server's request handling, few enough that
 * their log lines fit the output the harness keeps (64 KiB).
 */
const ROUNDS = 20;

/** A compress request whose bytes a test cuts short; its X-Request-Id finds its log line. */
function compressRequest(requestId: string): { head: Buffer; body: Buffer } {
  const { contentType, body } = multipartBody({ part: 'file', filename: 'cut.pdf', filler: 256 * 1024 });
  const head = requestHead('POST', '/api/v1/compress', {
    'X-Request-Id': requestId,
    Host: 'pdn.test',
    Authorization: `Bearer ${key}`,
    'Content-Type': contentType,
    'Content-Length': String(body.length),
  });
  return { head, body };
}

/** Waits (bounded) until the server has logged a finished request for every id; returns those missing. */
async function unloggedRequests(ids: readonly string[], graceMs = 10_000): Promise<string[]> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const logged = new Set(
      [...ctx.server.output.matchAll(/"request_id":"([^"]+)"[^\n]*"msg":"request"}/g)].map(
        (match) => match[1],
      ),
    );
    const missing = ids.filter((id) => !logged.has(id));
    if (missing.length === 0 || Date.now() >= deadline) return missing;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const cutPoints: [string, (request: { head: Buffer; body: Buffer }) => Buffer][] = [
  ['right after the headers', ({ head }) => head],
  ['in the middle of the body', ({ head, body }) => Buffer.concat([head, body.subarray(0, body.length / 2)])],
  ['right after the last byte', ({ head, body }) => Buffer.concat([head, body])],
];

describe.each(['reset', 'close'] as const)('connections cut by a %s', (how) => {
  it.each(cutPoints)('%s: every request is logged and leaves no work folder', async (_name, cut) => {
    const before = await listFiles(ctx.server);
    const ids: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const id = `cut-${randomUUID()}`;
      ids.push(id);
      await sendAndCut(ctx.server.baseUrl, cut(compressRequest(id)), how);
    }
    expect(await unloggedRequests(ids)).toEqual([]);
    expect(await filesLeftSince(ctx.server, before)).toEqual([]);
  });

  it('in the middle of the headers: the connection is logged and nothing is left', async () => {
    const before = await listFiles(ctx.server);
    // The harness keeps only the output's tail, so older lines scroll out as new ones come: count the
    // lines after the tail seen now, not every line in the output.
    const mark = ctx.server.output.slice(-200);
    const cutLines = () => {
      const output = ctx.server.output;
      const at = mark === '' ? -1 : output.lastIndexOf(mark);
      const since = at < 0 ? output : output.slice(at + mark.length);
      return (since.match(/connection reset by the client|request refused by the HTTP parser/g) ?? []).length;
    };
    const { head } = compressRequest(`cut-${randomUUID()}`);
    for (let round = 0; round < ROUNDS; round += 1)
      await sendAndCut(ctx.server.baseUrl, head.subarray(0, head.length / 2), how);
    const deadline = Date.now() + 10_000;
    while (cutLines() < ROUNDS && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(cutLines()).toBe(ROUNDS);
    expect(await filesLeftSince(ctx.server, before)).toEqual([]);
  });
});

it('the server still answers afterwards', async () => {
  expect((await ctx.call('/healthz')).status).toBe(200);
});

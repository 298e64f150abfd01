// Fuzz target: requests with odd headers on a raw socket (odd-headers.ts).
// Every answer the connection carries is contract-checked, is never a 500 and has the envelope when
// it is an error; the server keeps answering; nothing is left on disk.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IMAGE_ASSETS, labelledPdf } from '@pdn/fixtures';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkExchange } from '../contract/check-exchange.js';
import { assertExchange } from '../contract/checked-fetch.js';
import { filesLeftSince, listFiles } from '../harness/leftovers.js';
import { openSocket, parseResponses, type RawAnswer } from '../harness/raw-request.js';
import { useServer } from '../harness/use-server.js';
import { fuzz, fuzzTimeoutMs } from './fuzz-run.js';
import { HttpParserVerdict } from './http-parser-verdict.js';
import { expectHealthy, OPERATIONS } from './judge.js';
import { buildBody, type Fixtures } from './multipart-body.js';
import { requestArb, requestBytes } from './odd-headers.js';

const ctx = useServer();
let key: string;
let fixtures: Fixtures;
let parser: HttpParserVerdict;

/** Longer than any answer to a small request takes; the server's own limits are minutes. */
const ANSWER_WITHIN_MS = 30_000;

beforeAll(async () => {
  key = await ctx.server.createKey({ user: 'fuzz-headers', plan: 'enterprise' });
  fixtures = {
    pdf: await labelledPdf('H', 2),
    image: await readFile(join(IMAGE_ASSETS, 'text', 'eng-g4.tif')),
  };
  parser = await HttpParserVerdict.start();
});

afterAll(() => parser?.stop());

/**
 * Sends `bytes` and reads until the server closes. With `hangUp`, says it has sent everything (FIN)
 * right away: a client that gives up on a request the server still waits for.
 */
async function exchange(bytes: Buffer, hangUp: boolean): Promise<Buffer> {
  const socket = await openSocket(ctx.server.baseUrl);
  const chunks: Buffer[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no end of answer within ${ANSWER_WITHIN_MS} ms`)),
        ANSWER_WITHIN_MS,
      );
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('close', () => {
        clearTimeout(timer);
        resolve();
      });
      // A server that answers and closes before reading everything may reset the connection: what
      // it wrote before still counts.
      socket.on('error', () => {});
      if (hangUp) socket.end(bytes);
      else socket.write(bytes);
    });
  } finally {
    socket.destroy();
  }
  return Buffer.concat(chunks);
}

it(
  'answers every request with odd headers with a documented status, never a 500',
  async () => {
    const before = await listFiles(ctx.server);
    const host = new URL(ctx.server.baseUrl).host;
    const arbitrary = fc.constantFrom(...OPERATIONS).chain(requestArb);
    await fuzz('src/fuzz/headers.test.ts', arbitrary, async (model) => {
      const { contentType, body } = buildBody(model.body, fixtures);
      const bytes = requestBytes(model, body, contentType, key, host);
      const verdict = await parser.judge(bytes);
      // A request whose framing promises more than was sent waits for bytes that never come: the
      // client hangs up, and the server may answer or not, but must clean up and carry on.
      const answers: RawAnswer[] = parseResponses(await exchange(bytes, verdict === 'incomplete'));
      if (verdict !== 'incomplete')
        expect(answers.length, 'the server closed the connection without answering').toBeGreaterThan(0);
      const url = ctx.server.url(`/api/v1/${model.operation}`);
      for (const [index, answer] of answers.entries()) {
        const exchanged = { method: 'POST', url, ...answer };
        // What Node's parser refuses, or a request without Host, is answered before any route; so
        // is anything after the first request (bytes past a Content-Length that says less than was
        // sent are refused only once the request before them is answered). A body refused half-way
        // or cut by the hang-up is answered by whichever comes first: the route (a 401 needs no
        // body) or the HTTP layer.
        const byHttpLayer = index > 0 || !model.host || verdict === 'refused-head';
        const either = verdict === 'refused-body' || verdict === 'incomplete';
        if (either && checkExchange(exchanged).length > 0)
          assertExchange({ ...exchanged, refusedByHttpLayer: true });
        else assertExchange({ ...exchanged, refusedByHttpLayer: byHttpLayer });
        const said = answer.body.toString('utf8').slice(0, 500);
        expect(answer.status, `a server error: ${said}`).toBeLessThan(500);
        if (answer.status !== 200)
          expect(answer.json?.error?.code, `a ${answer.status} without the envelope`).toBeTypeOf('string');
      }
      await expectHealthy(ctx);
    });
    expect(await filesLeftSince(ctx.server, before)).toEqual([]);
  },
  fuzzTimeoutMs(),
);

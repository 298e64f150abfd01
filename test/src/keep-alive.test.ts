// A client that keeps its connections and is busy between calls, as ordinary clients are: Node's fetch
// (undici) reuses an idle connection for its next call, and a client whose event loop ran its own CPU
// work for a few seconds meanwhile has not yet seen a close the server made in that time. Node does not
// send a POST again on a connection closed under it, so the server keeps idle connections longer than
// such clients keep them (openapi.yaml, "Connections"); every call here gets its HTTP answer.
import { labelledPdf } from '@pdn/fixtures';
import { beforeAll, expect, it } from 'vitest';
import { file, form } from './harness/form.js';
import { useServer } from './harness/use-server.js';

const ctx = useServer();
const CALLS = 6;
let key: string;

beforeAll(async () => {
  key = await ctx.server.createKey({ user: 'busy-client', plan: 'premium' });
});

/**
 * Blocks this process's event loop for `ms`, as a client's own CPU-bound work does, but asleep:
 * nothing else runs here meanwhile, and the cores stay free for the test files running beside it.
 */
function busyFor(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

it("answers every call of Node's fetch, busy for about 5 s between calls on its kept-alive connection", async () => {
  const pdf = await labelledPdf('k', 1);
  const statuses: (number | string)[] = [];
  for (let call = 0; call < CALLS; call += 1) {
    const answer = await fetch(ctx.server.url('/api/v1/merge'), {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form(file('files[]', pdf, 'a.pdf'), file('files[]', pdf, 'b.pdf')),
    }).then(
      async (res) => {
        await res.arrayBuffer();
        return res.status;
      },
      (error: Error) => `${error.message}: ${(error.cause as Error | undefined)?.message}`,
    );
    statuses.push(answer);
    // Around the moment an idle connection of the former 5 s would close, a few ms apart.
    busyFor(4_980 + call * 4);
  }
  expect(statuses).toEqual(Array(CALLS).fill(200));
}, 180_000);

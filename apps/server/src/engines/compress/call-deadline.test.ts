// The compress call's two cuts fire, in order, and dispose() leaves no timer behind. The signals must
// hold their timers themselves: AbortSignal.timeout() held only by AbortSignal.any() can be garbage-
// collected on Node 20 and never fire, so this test collects garbage in between (which found it).
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { CallDeadline } from './call-deadline.js';

// V8's gc() without --expose-gc on the command line: the flag is read when a new context is made.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

describe('CallDeadline', () => {
  it('cuts the rewrites after their share, then the call at twice that', async () => {
    const deadline = new CallDeadline(new AbortController().signal, 40);
    collect();
    await new Promise((resolve) => deadline.rewrites.addEventListener('abort', resolve, { once: true }));
    expect([deadline.rewritesCut, deadline.callCut]).toEqual([true, false]);
    collect();
    await new Promise((resolve) => deadline.call.addEventListener('abort', resolve, { once: true }));
    expect([deadline.rewritesCut, deadline.callCut]).toEqual([false, true]);
  });

  it('tells the client going away from a cut', () => {
    const client = new AbortController();
    const deadline = new CallDeadline(client.signal, 60_000);
    client.abort();
    expect([deadline.call.aborted, deadline.rewrites.aborted]).toEqual([true, true]);
    expect([deadline.rewritesCut, deadline.callCut]).toEqual([false, false]);
    deadline.dispose();
  });

  it('cuts nothing once disposed', async () => {
    const deadline = new CallDeadline(new AbortController().signal, 20);
    deadline.dispose();
    await sleep(60);
    expect(deadline.call.aborted).toBe(false);
  });
});

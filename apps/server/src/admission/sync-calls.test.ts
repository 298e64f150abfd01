// A user's synchronous calls in progress, held to its plan's number and bytes, and told apart while
// their uploads arrive.
import { describe, expect, it } from 'vitest';
import { type SyncCall, SyncCalls } from './sync-calls.js';

const limits = { calls: 2, bytes: 100 };

function taken(calls: SyncCalls, userId: number, bytes: number): SyncCall {
  const result = calls.take(userId, bytes, limits);
  if (result.kind !== 'taken') throw new Error(`refused: ${result.over}`);
  return result.call;
}

describe('SyncCalls', () => {
  it("refuses a call beyond the plan's number, for that user only, until one leaves", () => {
    const calls = new SyncCalls();
    const first = taken(calls, 1, 10);
    taken(calls, 1, 10);
    expect(calls.take(1, 10, limits)).toMatchObject({ kind: 'refused', over: 'calls', held: { calls: 2 } });
    expect(calls.take(2, 10, limits).kind).toBe('taken');
    first.leave();
    first.leave();
    expect(calls.take(1, 10, limits).kind).toBe('taken');
    expect(calls.take(1, 10, limits).kind).toBe('refused');
  });

  it("refuses a call whose upload would pass the bytes held, but never a user's only call", () => {
    const calls = new SyncCalls();
    expect(calls.take(1, 500, limits).kind).toBe('taken');
    expect(calls.take(1, 1, limits)).toMatchObject({ kind: 'refused', over: 'bytes', held: { bytes: 500 } });
  });

  it('counts the calls still uploading, per user, until their jobs are stored', () => {
    const calls = new SyncCalls();
    const [a, b] = [taken(calls, 1, 10), taken(calls, 1, 10)];
    taken(calls, 2, 10);
    expect(calls.uploading()).toEqual(
      new Map([
        [1, 2],
        [2, 1],
      ]),
    );
    a.stored();
    b.leave();
    expect(calls.uploading()).toEqual(new Map([[2, 1]]));
  });
});

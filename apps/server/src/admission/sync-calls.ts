// The synchronous calls this process has admitted and not yet answered, per user (openapi.yaml,
// "Admission order and back-pressure"): each holds a connection, and until its job is stored an upload
// on the way to this server's disk. A user may hold at most its plan's number of them, carrying at
// most its plan's bytes of upload, so that no user can take the server's connections or disk however
// long the queue. A call counts its Content-Length, or the plan's whole-request cap when it sent none.
import { syncCallsInProgress } from '../metrics.js';

export interface SyncCallLimits {
  calls: number;
  bytes: number;
}

/** A call's hold on its user's share: its upload is stored (its job queued), then it leaves. */
export interface SyncCall {
  /** The call's job is stored: its upload is in the queue's count from now on. */
  stored(): void;
  /** Answered, or its client went away; only the first call counts. */
  leave(): void;
}

export type Taken =
  | { kind: 'taken'; call: SyncCall }
  | { kind: 'refused'; over: 'calls' | 'bytes'; held: { calls: number; bytes: number } };

interface Held {
  calls: number;
  bytes: number;
  /** Of those calls, the ones whose job is not stored yet. */
  uploading: number;
}

export class SyncCalls {
  readonly #byUser = new Map<number, Held>();
  #total = 0;

  take(userId: number, bytes: number, limits: SyncCallLimits): Taken {
    const held = this.#byUser.get(userId) ?? { calls: 0, bytes: 0, uploading: 0 };
    if (held.calls >= limits.calls) return { kind: 'refused', over: 'calls', held: { ...held } };
    // A single call larger than the whole allowance is the upload cap's to refuse, not this one's.
    if (held.calls > 0 && held.bytes + bytes > limits.bytes)
      return { kind: 'refused', over: 'bytes', held: { ...held } };
    // Taken in the same turn as the checks above, so two calls cannot both take the last place.
    held.calls += 1;
    held.bytes += bytes;
    held.uploading += 1;
    this.#byUser.set(userId, held);
    this.#count(1);
    let uploading = true;
    let left = false;
    const stored = () => {
      if (!uploading) return;
      uploading = false;
      held.uploading -= 1;
    };
    return {
      kind: 'taken',
      call: {
        stored,
        leave: () => {
          if (left) return;
          left = true;
          stored();
          held.calls -= 1;
          held.bytes -= bytes;
          if (held.calls === 0) this.#byUser.delete(userId);
          this.#count(-1);
        },
      },
    };
  }

  /** Calls admitted here whose jobs are not stored yet, per user: they will queue in a moment. */
  uploading(): Map<number, number> {
    const uploading = new Map<number, number>();
    for (const [userId, held] of this.#byUser) if (held.uploading > 0) uploading.set(userId, held.uploading);
    return uploading;
  }

  #count(change: number): void {
    this.#total += change;
    syncCallsInProgress.set(this.#total);
  }
}

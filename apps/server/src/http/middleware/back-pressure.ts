// The last step of admission (openapi.yaml, "Admission order and back-pressure"; issue #18): a bound on
// the synchronous calls this process has admitted and not yet answered, PDN_JOB_CONCURRENCY running
// plus PDN_MAX_QUEUE waiting for a slot. An `api` process runs no job (its calls' jobs run in the
// workers, whose slots it cannot see), so every call it admits waits and PDN_MAX_QUEUE alone bounds
// them: its own PDN_JOB_CONCURRENCY would count slots it does not have. Beyond the bound a synchronous
// call is answered `503 server_busy` at once, before its body is read (and instead of `100 Continue`:
// the uploads middleware sends that only when it starts reading), and is not counted. Asynchronous
// submissions pass: their jobs wait in the job queue, whose length the cap on unfinished jobs bounds
// per user. A call holds its place from admission to answer (or until its client goes away), its
// upload included: the place bounds what admitted calls hold on disk and in connections too, and a
// slow upload is cut, freeing its place, once its body falls below the minimum pace
// (http/upload-pace.ts). Places are not shared out per user (openapi.yaml says why).
//
// PDN_MAX_QUEUE's default (defaultMaxQueue) follows from what an admitted call may wait (issue #18:
// answered within twice its time alone, even at four times the server's capacity). With every place
// taken, an admitted call is answered after (places / throughput), by Little's law. The slots are not
// the only thing jobs share: the event loop does every job's own work (its upload, the job store,
// starting each tool; a small merge spent 16 ms of it against qpdf's 7 ms), so two small merges at
// once already take longer each than one alone (a third longer at the median, measured on 2 cores),
// and each call waiting for a slot adds its share of a job's time on top (the CPU count waiting, the former default, measured 4.3x on 2 cores,
// bench scenario 12). No place beyond the slots, then: a call admitted never waits behind another
// synchronous call, and a refusal costs the client one round trip before any upload, to send again
// after the hint or with `Prefer: respond-async`, where work does queue.
import { availableParallelism } from 'node:os';
import type { Middleware } from 'koa';
import type { Accounts } from '../../accounts/index.js';
import type { UploadLimits } from '../../config.js';
import { ServerBusyError } from '../../errors.js';
import { syncCallPlaces, syncCallsAdmitted } from '../../metrics.js';
import { asksForJob } from '../prefer.js';
import type { AppState } from '../state.js';
import { refuseAfterHourlyLimit } from './rate-limit.js';

export interface BackPressureDeps {
  accounts: Accounts;
  uploadLimits: UploadLimits;
  /** Jobs this process runs at once (PDN_JOB_CONCURRENCY); none where it runs no jobs (`--role api`). */
  slots: number;
  /** Synchronous calls that may wait for one of them (PDN_MAX_QUEUE); unset, defaultMaxQueue. */
  maxQueue?: number | undefined;
}

/**
 * PDN_MAX_QUEUE when unset: none where this process runs the jobs (see above). An `api` process cannot
 * see the workers' slots, which PDN_MAX_QUEUE should be sized to (README, "Scaling out"); without it,
 * the CPU count, as many calls as an embedded server of the same machine would run.
 */
export function defaultMaxQueue(slots: number): number {
  return slots === 0 ? availableParallelism() : 0;
}

export function backPressure(deps: BackPressureDeps): Middleware<AppState> {
  const bound = deps.slots + (deps.maxQueue ?? defaultMaxQueue(deps.slots));
  syncCallPlaces.set(bound);
  /** Synchronous calls admitted and not yet answered: running, or waiting for a slot. */
  let admitted = 0;
  return async (ctx, next) => {
    if (asksForJob(ctx)) return next();
    if (admitted >= bound)
      await refuseAfterHourlyLimit(
        ctx,
        deps.accounts,
        deps.uploadLimits,
        new ServerBusyError(
          `The server is busy: all ${bound} places for synchronous calls (running or waiting for a slot) are taken. ` +
            'Send this one again in a moment, or with Prefer: respond-async.',
        ),
      );
    // Taken in the same turn as the check above, so two calls cannot both take the last place.
    admitted += 1;
    syncCallsAdmitted.set(admitted);
    let held = true;
    const free = () => {
      if (!held) return;
      held = false;
      admitted -= 1;
      syncCallsAdmitted.set(admitted);
    };
    // A client that went away is answered by nobody: its place is free for the next caller (one
    // sending the call again at once, say) while its canceled work winds down.
    ctx.res.once('close', free);
    try {
      await next();
    } finally {
      free();
    }
  };
}

// How the four operation routes answer once they have parsed their request (issue #13): with
// `Prefer: respond-async`, the job is stored and answered `202` at once with where to poll it
// (openapi.yaml, "Jobs"); without, the same job runs while the request waits, and the answer is the
// operation's `data` or its error, as before jobs.
import type { JobOperation } from '@pdn/api-types';
import { type JobRunner, type JobTimings, newJobId } from '../../jobs/runner.js';
import type { OperationInput } from '../../operations/index.js';
import { asksForJob } from '../prefer.js';
import { sendData } from '../respond.js';
import type { AppContext } from '../state.js';
import { principalOf, uploadOf } from './upload-inputs.js';

export async function submitOrRun(
  ctx: AppContext,
  jobs: JobRunner,
  request: { operation: JobOperation; files: readonly OperationInput[]; params: unknown },
): Promise<void> {
  const upload = uploadOf(ctx);
  const submission = {
    ...request,
    id: newJobId(),
    userId: principalOf(ctx).userId,
    callbackUrl: ctx.state.callbackUrl,
    unfinishedJobsCap: ctx.state.unfinishedJobsCap,
  };
  ctx.state.jobId = submission.id;
  // The key names the job before it exists, so a duplicate never finds it unbound once it runs.
  await ctx.state.idempotency?.bind(submission.id);
  if (!asksForJob(ctx)) {
    const caller = {
      log: ctx.state.log,
      timed: (timings: JobTimings) => {
        ctx.state.jobTimings = timings;
      },
    };
    sendData(ctx, await jobs.run(submission, upload.signal, caller));
    return;
  }
  const job = await jobs.submit(submission);
  sendData(ctx, jobs.view(job));
  ctx.status = 202;
  ctx.set('Location', `/api/v1/jobs/${job.id}`);
  ctx.set('Preference-Applied', 'respond-async');
}

// The per-plan cap on unfinished jobs (openapi.yaml, "Jobs"; issue #13). Runs after auth and before
// the body, on asynchronous submissions only; the hourly limit refuses first (issue #18, one admission
// order), and a refused submission costs no upload and is not counted. That look is not the guarantee:
// submissions racing past it together are held to the cap as their jobs are stored (JobStore.create
// counts and inserts in one atomic step) and answered the same way, their upload done; counted by then,
// each gives its request back to the hourly limit, since `too_many_jobs` is never counted (a Free CLI
// batch of 12 files lost several of its 10 requests so; issue #18). The answer carries Retry-After, like
// every 429, and the rate-limit headers as they stand, as the contract's 429 does.
import type { Middleware } from 'koa';
import { type Accounts, planLimits, planTitle } from '../../accounts/index.js';
import type { UploadLimits } from '../../config.js';
import { TooManyJobsError } from '../../errors.js';
import { UnfinishedJobsCapReached } from '../../jobs/job-store.js';
import { POLL_AFTER_SECONDS } from '../../jobs/retention.js';
import { admissionRefusals } from '../../metrics.js';
import { asksForJob } from '../prefer.js';
import type { AppState } from '../state.js';
import { refuseAfterHourlyLimit, usageHeaders } from './rate-limit.js';

export function jobCap(accounts: Accounts, uploadLimits: UploadLimits): Middleware<AppState> {
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    if (!principal) throw new Error('jobCap needs the auth middleware in front of it');
    if (!asksForJob(ctx)) return next();
    const { unfinishedJobs, requestsPerHour } = planLimits(principal.plan, uploadLimits);
    const refusal = (unfinished: number) =>
      new TooManyJobsError(
        `You have ${unfinished} unfinished jobs; the ${planTitle(principal.plan)} plan allows ${unfinishedJobs} at once. ` +
          'Wait for some to finish (or cancel some), then submit again.',
        // A job ends no sooner than a poll would notice: the poll interval is the soonest worth trying.
        { headers: { 'Retry-After': String(POLL_AFTER_SECONDS) } },
      );
    const unfinished = await accounts.jobs.countUnfinished(principal.userId);
    if (unfinished >= unfinishedJobs)
      await refuseAfterHourlyLimit(ctx, accounts, uploadLimits, refusal(unfinished));
    ctx.state.unfinishedJobsCap = unfinishedJobs;
    try {
      await next();
    } catch (error) {
      if (!(error instanceof UnfinishedJobsCapReached)) throw error;
      const { countedAs } = ctx.state;
      if (countedAs !== undefined) await accounts.rateLimiter.release(principal.userId, countedAs);
      ctx.set(usageHeaders(await accounts.rateLimiter.usage(principal.userId, requestsPerHour), Date.now()));
      admissionRefusals.inc({ code: 'too_many_jobs' });
      throw refusal(error.unfinished);
    }
  };
}

// What middleware hands to later middleware and routes through `ctx.state`, typed once.
import type { ParameterizedContext } from 'koa';
import type { Principal, User } from '../accounts/index.js';
import type { JobTimings } from '../jobs/runner.js';
import type { Logger } from '../logger.js';
import type { Upload } from './upload.js';

export interface AppState {
  requestId: string;
  /** The operators' log, bound to this request's id. */
  log: Logger;
  /** Set by the auth middleware on /api/v1 routes. */
  principal?: Principal;
  /** Set by the uploads middleware on multipart routes. */
  upload?: Upload;
  /**
   * Set by the job-cap middleware on asynchronous submissions: the plan's cap on unfinished jobs, held
   * to again as the job is stored.
   */
  unfinishedJobsCap?: number;
  /**
   * Set by the rate-limit middleware when it counts the request: the event that counted it, which a
   * later refusal that must not count gives back (job-cap.ts).
   */
  countedAs?: string;
  /** Set by the callback-url middleware when an asynchronous submission names one (issue #14). */
  callbackUrl?: string;
  /** Set by the idempotency middleware for the first request with its key: ties the key to the job. */
  idempotency?: { bind(jobId: string): Promise<void> };
  /** Set when an operation route names its job, run now or queued: the request's log line carries it. */
  jobId?: string;
  /** Set when this process ran the job of a synchronous call: where its time went, for the log line. */
  jobTimings?: JobTimings;
  /** Set by the drain middleware: aborted when a stopping server gives up on this request. */
  shutdown?: AbortSignal;
  /** Set by the account area (account/area.ts) on every /account request. */
  page?: PageState;
}

export interface PageState {
  /** The signed-in user and their session; absent when signed out. */
  viewer?: { user: User; sessionId: string };
  /** The CSRF token this request's forms carry: the session's, or the signed-out visitor's cookie. */
  csrfToken: string;
  /** A POST's fields, read and checked (Origin, CSRF) by account/form-guard.ts before any handler. */
  form?: URLSearchParams;
}

export type AppContext = ParameterizedContext<AppState>;

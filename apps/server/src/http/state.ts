// What middleware hands to later middleware and routes through `ctx.state`, typed once.
import type { ParameterizedContext } from 'koa';
import type { Principal, User } from '../accounts/index.js';
import type { Logger } from '../logger.js';

export interface AppState {
  requestId: string;
  /** The operators' log, bound to this request's id. */
  log: Logger;
  /** Set by the auth middleware on /api/v1 routes. */
  principal?: Principal;
  /** Set when an operation names its job, run now or queued: the request's log line carries it (the job's own lines carry the request id). */
  jobId?: string;
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

// What middleware hands to later middleware and routes through `ctx.state`, typed once.
import type { ParameterizedContext } from 'koa';
import type { Principal } from '../accounts/index.js';
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
  /** Set by the drain middleware: aborted when a stopping server gives up on this request. */
  shutdown?: AbortSignal;
}

export type AppContext = ParameterizedContext<AppState>;

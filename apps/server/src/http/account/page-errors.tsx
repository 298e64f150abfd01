// Errors of the account area become HTML pages, never the API's JSON envelope (STYLE.md 23). As Koa's
// own onerror does, every header already set is dropped but the request id (a half-set cookie or a
// redirect must not survive); expected errors (4xx) show their message, anything else a generic text
// with the request id, the cause going to the log only.
import { ApiError, MethodNotAllowedError } from '../../errors.js';
import { clientGone } from '../client-gone.js';
import type { AppContext } from '../state.js';
import { pageHeaders } from './page-headers.js';
import { sendPage } from './render.js';
import { MessagePage } from './views/message.js';

const TITLES: Record<number, string> = {
  400: 'That did not work',
  403: 'Not allowed',
  404: 'Page not found',
  405: 'Not allowed',
  413: 'Too large',
  503: 'Down for a moment',
};

export function renderPageError(ctx: AppContext, error: unknown): void {
  const known = error instanceof ApiError && error.status < 500 ? error : undefined;
  if (clientGone(ctx))
    ctx.state.log.info('client went away before the answer', { reason: (error as Error).message });
  else if (!known) ctx.state.log.error('account page failed', { error });
  const requestId = ctx.state.requestId;
  for (const name of ctx.res.getHeaderNames()) {
    if (name.toLowerCase() !== 'x-request-id') ctx.remove(name);
  }
  ctx.set(pageHeaders());
  if (known instanceof MethodNotAllowedError) ctx.set(known.headers);
  const status = known?.status ?? (error instanceof ApiError ? error.status : 500);
  sendPage(
    ctx,
    <MessagePage
      title={TITLES[status] ?? 'Something went wrong'}
      message={known?.message ?? 'The server hit an unexpected error. Try again in a moment.'}
      requestId={requestId}
    />,
    status,
  );
}

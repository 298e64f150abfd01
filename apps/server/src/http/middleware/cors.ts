// CORS for browser clients: which web pages may call the API from another origin. Off
// unless PDN_CORS_ORIGINS names origins (or `*`); on `/api/...` paths only, so the docs and account
// pages stay same-origin; never with credentials: the API key is sent as a header by the page's own
// code, and cookies have no business here (Fetch standard, "CORS protocol"). openapi.yaml documents
// the preflight (`options` operations) and the headers in "Browsers (CORS)".
import type { Middleware } from 'koa';
import type { CorsOrigins } from '../../config.js';
import type { AppState } from '../state.js';

/** The methods the API offers (GET answers HEAD too). */
export const CORS_METHODS = 'GET, HEAD, POST, DELETE';
/** Request headers a page may send beyond the CORS-safelisted ones: X-Request-Id is kept (request-id.ts), Prefer asks for a job and Idempotency-Key makes a submission safe to repeat. */
export const CORS_REQUEST_HEADERS = 'Authorization, Content-Type, X-Request-Id, Prefer, Idempotency-Key';
/** Response headers a page may read beyond the safelisted ones: ids, rate limits, download names, where a job is. */
export const CORS_EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
  'Retry-After',
  'Content-Disposition',
  'Location',
  'Preference-Applied',
].join(', ');
/** Seconds a browser may reuse a preflight's answer (Chromium caps it at 7200). */
const PREFLIGHT_MAX_AGE = '600';

export function cors(origins: CorsOrigins): Middleware<AppState> {
  return async (ctx, next) => {
    if (origins.length === 0 || !ctx.path.startsWith('/api/')) return next();
    // Answers differ by Origin when origins are listed: caches must key on it (Fetch standard, "CORS
    // protocol and HTTP caches"), even for a request that sent none.
    if (origins !== '*') ctx.vary('Origin');
    const origin = ctx.get('Origin');
    // Not allowed (or not a browser's cross-origin call): answered as without CORS. A preflight then
    // gets 204 with `Allow` and no Access-Control-* header (options.ts), which the browser reports as
    // the origin not being allowed, and it keeps the page from reading anything.
    if (origin === '' || (origins !== '*' && !origins.includes(origin))) return next();
    ctx.set('Access-Control-Allow-Origin', origins === '*' ? '*' : origin);
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method') !== '') {
      ctx.set('Access-Control-Allow-Methods', CORS_METHODS);
      ctx.set('Access-Control-Allow-Headers', CORS_REQUEST_HEADERS);
      ctx.set('Access-Control-Max-Age', PREFLIGHT_MAX_AGE);
      ctx.status = 204;
      return;
    }
    // Set before the request runs, so error answers (401, 413, 429...) stay readable by the page.
    ctx.set('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS);
    await next();
  };
}

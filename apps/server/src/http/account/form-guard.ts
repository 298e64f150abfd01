// Every POST of the account area passes here before its handler (STYLE.md 13: one boundary
// owns the check): the body must be a small urlencoded form, the request must come from this site's
// own pages (Origin, when the browser sends it, must be this server's), and the form must carry this
// session's or this visitor's CSRF token, compared in constant time.
import { timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { ForbiddenError, InvalidInputError, PayloadTooLargeError } from '../../errors.js';
import type { AppContext, AppState } from '../state.js';

/** Our forms are a few short fields; 16 KiB is plenty and bounds what is read before the checks. */
const FORM_LIMIT = 16 * 1024;

const STALE_FORM =
  'This form has expired or was not sent from this site. Go back, reload the page and try again.';

/** The request's body as text, at most FORM_LIMIT bytes. */
export async function readFormBody(ctx: AppContext): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_LIMIT) throw new PayloadTooLargeError('This form is larger than any of ours.');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function sameToken(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function formGuard(): Middleware<AppState> {
  return async (ctx, next) => {
    const page = ctx.state.page;
    if (!page) throw new Error('formGuard runs inside the account area');
    // Browsers send Origin on every POST (Fetch standard); a mismatch is another site's form.
    // Not ctx.origin: in Koa 3 that is the Origin header itself, so comparing them always agreed.
    const origin = ctx.get('Origin');
    if (origin !== '' && origin !== `${ctx.protocol}://${ctx.host}`) throw new ForbiddenError(STALE_FORM);
    if (ctx.get('Sec-Fetch-Site') === 'cross-site') throw new ForbiddenError(STALE_FORM);
    if (!ctx.is('application/x-www-form-urlencoded'))
      throw new InvalidInputError('Send this form from its page in the account area.');
    const form = new URLSearchParams(await readFormBody(ctx));
    if (!sameToken(form.get('csrf'), page.csrfToken)) throw new ForbiddenError(STALE_FORM);
    page.form = form;
    await next();
  };
}

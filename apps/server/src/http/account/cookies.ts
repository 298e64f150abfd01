// The account area's two cookies: the session id once signed in, and a CSRF token for the
// forms a signed-out visitor fills in (sign in, sign up, choose a password). Both HttpOnly, so page
// scripts never see them; SameSite=Lax, so other sites' forms do not carry them; Secure when the
// request came over https (directly, or through a proxy trusted by PDN_TRUST_PROXY); scoped to /account.
import type { AppContext } from '../state.js';

export const SESSION_COOKIE = 'pdn_session';
export const CSRF_COOKIE = 'pdn_csrf';

function writeCookie(ctx: AppContext, name: string, value: string, maxAgeMs: number | undefined): void {
  ctx.cookies.set(name, value, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: '/account',
    overwrite: true,
    signed: false,
    ...(maxAgeMs === undefined ? {} : { maxAge: maxAgeMs }),
  });
}

/** Without `maxAgeMs`, a cookie that ends with the browser session. */
export function setCookie(ctx: AppContext, name: string, value: string, maxAgeMs?: number): void {
  writeCookie(ctx, name, value, maxAgeMs);
}

export function clearCookie(ctx: AppContext, name: string): void {
  writeCookie(ctx, name, '', 0);
}

export function readCookie(ctx: AppContext, name: string): string | undefined {
  const value = ctx.cookies.get(name, { signed: false });
  // Our values are base64url; anything else was not set by this server.
  return value !== undefined && /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : undefined;
}

// Who is looking at an account page: the session cookie resumed through accounts.sessions
// (expiry is decided there), and the CSRF token the page's forms must carry. A signed-out visitor gets
// a random token in a cookie of its own, so sign-in and sign-up forms are protected too.
import { randomBytes } from 'node:crypto';
import { type Accounts, type User, userLabel } from '../../accounts/index.js';
import type { AppContext, PageState } from '../state.js';
import { CSRF_COOKIE, clearCookie, readCookie, SESSION_COOKIE, setCookie } from './cookies.js';
import type { Viewer } from './views/layout.js';

/** The signed-in user, and what the views show of them; for routes behind signedIn() only. */
export function viewerOf(ctx: AppContext): Viewer & { userId: number; user: User } {
  const page = ctx.state.page;
  if (!page?.viewer) throw new Error('this route runs behind signedIn()');
  const { user } = page.viewer;
  return { user, userId: user.id, email: userLabel(user), csrfToken: page.csrfToken };
}

export async function loadViewer(ctx: AppContext, accounts: Accounts): Promise<PageState> {
  const sessionId = readCookie(ctx, SESSION_COOKIE);
  if (sessionId !== undefined) {
    const session = await accounts.sessions.resume(sessionId);
    const user = session && (await accounts.users.byId(session.userId));
    if (session && user) return { viewer: { user, sessionId }, csrfToken: session.csrfToken };
    clearCookie(ctx, SESSION_COOKIE);
  }
  let csrfToken = readCookie(ctx, CSRF_COOKIE);
  if (csrfToken === undefined) {
    csrfToken = randomBytes(32).toString('base64url');
    setCookie(ctx, CSRF_COOKIE, csrfToken);
  }
  return { csrfToken };
}

/** Signs `userId` in with a brand-new session (never the id the browser had) and ends the old one. */
export async function signIn(ctx: AppContext, accounts: Accounts, userId: number, maxAgeMs: number) {
  const previous = readCookie(ctx, SESSION_COOKIE);
  if (previous !== undefined) await accounts.sessions.end(previous);
  const session = await accounts.sessions.start(userId);
  setCookie(ctx, SESSION_COOKIE, session.id, maxAgeMs);
  clearCookie(ctx, CSRF_COOKIE);
}

export async function signOut(ctx: AppContext, accounts: Accounts): Promise<void> {
  const current = readCookie(ctx, SESSION_COOKIE);
  if (current !== undefined) await accounts.sessions.end(current);
  clearCookie(ctx, SESSION_COOKIE);
}

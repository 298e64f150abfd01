// Sign in (issue #12). Throttled per account and per client address before the password is checked;
// an unknown email costs the same hash as a wrong password and gets the same answer, so the form tells
// nobody which emails have accounts. A successful sign-in gets a brand-new session.
import type { Middleware } from 'koa';
import {
  type Attempt,
  NO_ACCOUNT_HASH,
  normaliseEmail,
  RULES,
  type User,
  verifyPassword,
} from '../../../accounts/index.js';
import type { AppContext, AppState } from '../../state.js';
import type { AreaDeps } from '../deps.js';
import { seeOther, sendPage } from '../render.js';
import { signIn } from '../viewer.js';
import { SignInPage } from '../views/credentials.js';
import { waitText } from '../views/time.js';

const WRONG = 'The email or password is wrong.';

function page(ctx: AppContext, deps: AreaDeps, extra: { error?: string; notice?: string; email?: string }) {
  return (
    <SignInPage
      csrfToken={ctx.state.page?.csrfToken ?? ''}
      signUpOpen={deps.config.account.signUp}
      error={extra.error}
      notice={extra.notice}
      email={extra.email}
    />
  );
}

export function signInForm(deps: AreaDeps): Middleware<AppState> {
  return (ctx) => {
    if (ctx.state.page?.viewer) return seeOther(ctx, '/account/keys');
    const notice = ctx.query['signed-out'] !== undefined ? 'You have signed out.' : undefined;
    sendPage(ctx, page(ctx, deps, notice === undefined ? {} : { notice }));
  };
}

async function find(deps: AreaDeps, email: string): Promise<User | undefined> {
  try {
    return await deps.accounts.users.byEmail(normaliseEmail(email));
  } catch {
    return undefined;
  }
}

export function signInSubmit(deps: AreaDeps): Middleware<AppState> {
  const { accounts, config } = deps;
  return async (ctx) => {
    const form = ctx.state.page?.form ?? new URLSearchParams();
    const email = form.get('email') ?? '';
    const password = form.get('password') ?? '';
    const attempts: Attempt[] = [
      [RULES.signInAccount, email.trim().toLowerCase()],
      [RULES.signInAddress, ctx.ip],
    ];
    const wait = await accounts.throttle.waitSeconds(attempts);
    if (wait > 0) {
      ctx.set('Retry-After', String(wait));
      const error = `Too many sign-in attempts. Try again in ${waitText(wait)}.`;
      return sendPage(ctx, page(ctx, deps, { error, email }), 429);
    }
    const user = await find(deps, email);
    const hash = user && (await accounts.users.passwordHash(user.id));
    const matches = await verifyPassword(password, hash ?? NO_ACCOUNT_HASH);
    if (!user || hash === undefined || !matches) {
      await accounts.throttle.record(attempts);
      return sendPage(ctx, page(ctx, deps, { error: WRONG, email }), 401);
    }
    await accounts.throttle.clear(RULES.signInAccount, email.trim().toLowerCase());
    await signIn(ctx, accounts, user.id, config.account.sessionLimits.maxMs);
    seeOther(ctx, '/account/keys');
  };
}

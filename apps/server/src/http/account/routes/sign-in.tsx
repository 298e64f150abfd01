// Sign in. Throttled per account (or per account and known address) and per client address, the
// attempt reserved before the password is checked (accounts/throttle.ts); an unknown email costs the
// same hash as a wrong password and gets the same answer, so the form tells nobody which emails have
// accounts. The check runs on the password hasher's threads, in a place of the client address's
// share; with none free the form answers at once, unchecked, before it looks anything up. A
// successful sign-in gets a brand-new session.
import type { Middleware } from 'koa';
import { clientAddressKey, NO_ACCOUNT_HASH, normaliseEmail, type User } from '../../../accounts/index.js';
import { clientGoneSignal } from '../../client-gone.js';
import type { AppContext, AppState } from '../../state.js';
import type { AreaDeps } from '../deps.js';
import { hashRefusal, refusedBeforeHashing } from '../hash-refusal.js';
import { seeOther, sendPage } from '../render.js';
import { signIn } from '../viewer.js';
import { SignInPage } from '../views/credentials.js';
import { waitText } from '../views/time.js';

const WRONG = 'The email or password is wrong.';

/**
 * Where to go once signed in: the account page the visitor was sent from (`next`, a path of this
 * area only, never another site), else the keys.
 */
function nextPage(given: string | null | undefined): string | undefined {
  if (typeof given !== 'string' || !given.startsWith('/account/') || /[\\\s]|\/\//.test(given))
    return undefined;
  return given;
}

function page(
  ctx: AppContext,
  deps: AreaDeps,
  extra: { error?: string; notice?: string; email?: string; next?: string | undefined },
) {
  return (
    <SignInPage
      csrfToken={ctx.state.page?.csrfToken ?? ''}
      signUpOpen={deps.config.account.signUp}
      error={extra.error}
      notice={extra.notice}
      email={extra.email}
      next={extra.next}
    />
  );
}

export function signInForm(deps: AreaDeps): Middleware<AppState> {
  return (ctx) => {
    const next = nextPage(typeof ctx.query.next === 'string' ? ctx.query.next : undefined);
    if (ctx.state.page?.viewer) return seeOther(ctx, next ?? '/account/keys');
    const notice = ctx.query['signed-out'] !== undefined ? 'You have signed out.' : undefined;
    sendPage(ctx, page(ctx, deps, { next, ...(notice === undefined ? {} : { notice }) }));
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
    const next = nextPage(form.get('next'));
    const address = clientAddressKey(ctx.ip);
    const early = refusedBeforeHashing(ctx, deps.passwords, address);
    if (early) return sendPage(ctx, page(ctx, deps, { error: early.message, email, next }), early.status);
    const user = await find(deps, email);
    // Reserved before the hash, in one step: attempts in flight count as failures until proven right.
    const decision = await accounts.throttle.reserve(
      await accounts.throttle.signInAttempts(email, user?.id, address),
    );
    if (!decision.reserved) {
      ctx.set('Retry-After', String(decision.waitSeconds));
      const error = `Too many sign-in attempts. Try again in ${waitText(decision.waitSeconds)}.`;
      return sendPage(ctx, page(ctx, deps, { error, email, next }), 429);
    }
    const hash = user && (await accounts.users.passwordHash(user.id));
    let matches: boolean;
    try {
      matches = await deps.passwords.verify(password, hash ?? NO_ACCOUNT_HASH, {
        address,
        signal: clientGoneSignal(ctx),
      });
    } catch (error) {
      const refusal = hashRefusal(ctx, error, deps.passwords);
      if (!refusal) throw error;
      // Never checked: the attempt was not a failure.
      await accounts.throttle.release(decision.reservation);
      return sendPage(ctx, page(ctx, deps, { error: refusal.message, email, next }), refusal.status);
    }
    if (!user || hash === undefined || !matches)
      return sendPage(ctx, page(ctx, deps, { error: WRONG, email, next }), 401);
    await accounts.throttle.signedIn(decision.reservation, user.id, address);
    await signIn(ctx, accounts, user.id, config.account.sessionLimits.maxMs);
    seeOther(ctx, next ?? '/account/keys');
  };
}

// Sign up: email and password, a new account on Free, signed in at once. Turned off with PDN_SIGNUP=off;
// throttled per client address, every attempt counted, so nobody mass-creates accounts. The answer
// for an email that has an account says so (without a mail step a new address is signed in at once
// and an existing one cannot be, so this cannot be hidden), but costs the address a failed sign-in.
import type { Middleware } from 'koa';
import {
  clientAddressKey,
  EmailTakenError,
  InvalidEmailError,
  normaliseEmail,
  passwordProblem,
  RULES,
} from '../../../accounts/index.js';
import { clientGoneSignal } from '../../client-gone.js';
import type { AppContext, AppState } from '../../state.js';
import type { AreaDeps } from '../deps.js';
import { hashRefusal, refusedBeforeHashing } from '../hash-refusal.js';
import { seeOther, sendPage } from '../render.js';
import { signIn } from '../viewer.js';
import { SignUpClosedPage, SignUpPage } from '../views/credentials.js';
import { waitText } from '../views/time.js';

function refuse(ctx: AppContext, status: number, error: string, email: string): void {
  sendPage(
    ctx,
    <SignUpPage csrfToken={ctx.state.page?.csrfToken ?? ''} error={error} email={email} />,
    status,
  );
}

export function signUpForm(deps: AreaDeps): Middleware<AppState> {
  return (ctx) => {
    if (!deps.config.account.signUp) return sendPage(ctx, <SignUpClosedPage />, 404);
    if (ctx.state.page?.viewer) return seeOther(ctx, '/account/keys');
    sendPage(ctx, <SignUpPage csrfToken={ctx.state.page?.csrfToken ?? ''} />);
  };
}

/**
 * An answer that tells the email has an account costs the address a failed sign-in: counted in the
 * same bucket (20 in 15 minutes), so asking sign-up which emails exist costs what guessing costs.
 */
async function emailTaken(ctx: AppContext, deps: AreaDeps, address: string, given: string): Promise<void> {
  const decision = await deps.accounts.throttle.reserve([[RULES.signInAddress, address]]);
  if (!decision.reserved) return tooMany(ctx, decision.waitSeconds, given);
  refuse(ctx, 409, 'An account with this email exists already: sign in instead.', given);
}

function tooMany(ctx: AppContext, waitSeconds: number, given: string): void {
  ctx.set('Retry-After', String(waitSeconds));
  refuse(ctx, 429, `Too many attempts from your address. Try again in ${waitText(waitSeconds)}.`, given);
}

export function signUpSubmit(deps: AreaDeps): Middleware<AppState> {
  const { accounts, config } = deps;
  return async (ctx) => {
    if (!config.account.signUp) return sendPage(ctx, <SignUpClosedPage />, 403);
    const form = ctx.state.page?.form ?? new URLSearchParams();
    const given = form.get('email') ?? '';
    const password = form.get('password') ?? '';
    const address = clientAddressKey(ctx.ip);
    const early = refusedBeforeHashing(ctx, deps.passwords, address);
    if (early) return refuse(ctx, early.status, early.message, given);
    const decision = await accounts.throttle.reserve([[RULES.signUpAddress, address]]);
    if (!decision.reserved) {
      ctx.set('Retry-After', String(decision.waitSeconds));
      return refuse(
        ctx,
        429,
        `Too many sign-ups from your address. Try again in ${waitText(decision.waitSeconds)}.`,
        given,
      );
    }
    let email: string;
    try {
      email = normaliseEmail(given);
    } catch (error) {
      if (error instanceof InvalidEmailError)
        return refuse(ctx, 400, 'Enter an email address such as ada@example.com.', given);
      throw error;
    }
    const problem = passwordProblem(password);
    if (problem !== undefined) return refuse(ctx, 400, `Choose another password. ${problem}`, given);
    // A taken email is answered before any hashing: the answer says it anyway.
    if (await accounts.users.byEmail(email)) return emailTaken(ctx, deps, address, given);
    let hash: string;
    try {
      hash = await deps.passwords.hash(password, { address, signal: clientGoneSignal(ctx) });
    } catch (error) {
      const refusal = hashRefusal(ctx, error, deps.passwords);
      if (!refusal) throw error;
      // Turned away unhashed: the server's doing, not an attempt of the client's.
      await accounts.throttle.release(decision.reservation);
      return refuse(ctx, refusal.status, refusal.message, given);
    }
    try {
      const user = await accounts.users.createWithEmail(email, 'free', hash);
      await accounts.throttle.rememberAddress(user.id, address);
      await signIn(ctx, accounts, user.id, config.account.sessionLimits.maxMs);
    } catch (error) {
      if (error instanceof EmailTakenError) return emailTaken(ctx, deps, address, given);
      throw error;
    }
    seeOther(ctx, '/account/keys?welcome');
  };
}

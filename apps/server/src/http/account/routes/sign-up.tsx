// Sign up (issue #12): email and password, a new account on Free, signed in at once. Turned off with
// PDN_SIGNUP=off; throttled per client address, every attempt counted, so nobody mass-creates accounts.
import type { Middleware } from 'koa';
import {
  EmailTakenError,
  hashPassword,
  InvalidEmailError,
  normaliseEmail,
  passwordProblem,
  RULES,
} from '../../../accounts/index.js';
import type { AppContext, AppState } from '../../state.js';
import type { AreaDeps } from '../deps.js';
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

export function signUpSubmit(deps: AreaDeps): Middleware<AppState> {
  const { accounts, config } = deps;
  return async (ctx) => {
    if (!config.account.signUp) return sendPage(ctx, <SignUpClosedPage />, 403);
    const form = ctx.state.page?.form ?? new URLSearchParams();
    const given = form.get('email') ?? '';
    const password = form.get('password') ?? '';
    const attempt = [[RULES.signUpAddress, ctx.ip]] as const;
    const wait = await accounts.throttle.waitSeconds(attempt);
    if (wait > 0) {
      ctx.set('Retry-After', String(wait));
      return refuse(ctx, 429, `Too many sign-ups from your address. Try again in ${waitText(wait)}.`, given);
    }
    await accounts.throttle.record(attempt);
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
    try {
      const user = await accounts.users.createWithEmail(email, 'free', await hashPassword(password));
      await signIn(ctx, accounts, user.id, config.account.sessionLimits.maxMs);
    } catch (error) {
      if (error instanceof EmailTakenError)
        return refuse(ctx, 409, 'An account with this email exists already: sign in instead.', given);
      throw error;
    }
    seeOther(ctx, '/account/keys?welcome');
  };
}

// The page a one-time link opens (`pdn-server users create` or `users reset-password`):
// choose a password, then be signed in. Opening the page does not spend the link (previewers fetch
// links); saving does, and signs the user out everywhere else, as a reset should.
import type { Middleware } from 'koa';
import { clientAddressKey, passwordProblem, userLabel } from '../../../accounts/index.js';
import { clientGoneSignal } from '../../client-gone.js';
import type { AppState } from '../../state.js';
import type { AreaDeps } from '../deps.js';
import { hashRefusal } from '../hash-refusal.js';
import { seeOther, sendPage } from '../render.js';
import { signIn } from '../viewer.js';
import { SetPasswordPage } from '../views/credentials.js';
import { MessagePage } from '../views/message.js';

const USED = (
  <MessagePage
    title="This link no longer works"
    message="It was used already, replaced by a newer one, or is more than a day old. Ask the operator for a new one."
  />
);

export function welcomeForm(deps: AreaDeps): Middleware<AppState> {
  return async (ctx) => {
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    const userId = token === '' ? undefined : await deps.accounts.signInLinks.peek(token);
    const user = userId === undefined ? undefined : await deps.accounts.users.byId(userId);
    if (!user) return sendPage(ctx, USED, 410);
    sendPage(
      ctx,
      <SetPasswordPage csrfToken={ctx.state.page?.csrfToken ?? ''} token={token} email={userLabel(user)} />,
    );
  };
}

export function welcomeSubmit(deps: AreaDeps): Middleware<AppState> {
  const { accounts, config } = deps;
  return async (ctx) => {
    const form = ctx.state.page?.form ?? new URLSearchParams();
    const token = form.get('token') ?? '';
    const password = form.get('password') ?? '';
    const peeked = await accounts.signInLinks.peek(token);
    const user = peeked === undefined ? undefined : await accounts.users.byId(peeked);
    if (!user) return sendPage(ctx, USED, 410);
    const again = (error: string, status: number) =>
      sendPage(
        ctx,
        <SetPasswordPage
          csrfToken={ctx.state.page?.csrfToken ?? ''}
          token={token}
          email={userLabel(user)}
          error={error}
        />,
        status,
      );
    const problem = passwordProblem(password);
    if (problem !== undefined) return again(`Choose another password. ${problem}`, 400);
    const address = clientAddressKey(ctx.ip);
    // Hashed before the link is spent: a server too busy to hash leaves the link working.
    let hash: string;
    try {
      hash = await deps.passwords.hash(password, { address, signal: clientGoneSignal(ctx) });
    } catch (error) {
      const refusal = hashRefusal(ctx, error, deps.passwords);
      if (!refusal) throw error;
      return again(refusal.message, refusal.status);
    }
    const userId = await accounts.signInLinks.redeem(token);
    if (userId === undefined) return sendPage(ctx, USED, 410);
    await accounts.users.setPasswordHash(userId, hash);
    await accounts.throttle.rememberAddress(userId, address);
    await accounts.sessions.endAllFor(userId);
    await signIn(ctx, accounts, userId, config.account.sessionLimits.maxMs);
    seeOther(ctx, '/account/keys');
  };
}

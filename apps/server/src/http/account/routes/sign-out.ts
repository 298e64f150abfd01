// Sign out: the session is deleted server-side, so its cookie is worthless everywhere.
import type { Middleware } from 'koa';
import type { AppState } from '../../state.js';
import type { AreaDeps } from '../deps.js';
import { seeOther } from '../render.js';
import { signOut } from '../viewer.js';

export function signOutSubmit(deps: AreaDeps): Middleware<AppState> {
  return async (ctx) => {
    await signOut(ctx, deps.accounts);
    seeOther(ctx, '/account/sign-in?signed-out');
  };
}

// Where people and programs reach this server, for the links and "Try it" lines the account area
// hands out: the operator's PDN_PUBLIC_URL, else the address this request came to (behind a trusted
// proxy, the one the client used). Not ctx.origin: in Koa 3 that is the request's Origin header,
// which a CLI does not send.
import type { AppContext } from '../state.js';
import type { AreaDeps } from './deps.js';

export function publicBaseUrl(deps: AreaDeps, ctx: AppContext): string {
  return deps.config.account.publicUrl ?? `${ctx.protocol}://${ctx.host}`;
}

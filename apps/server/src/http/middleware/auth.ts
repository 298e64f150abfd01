// Bearer authentication for /api/v1 (v1 specification, Authentication): missing, malformed, unknown
// or revoked keys are all `401 unauthorized` with `WWW-Authenticate: Bearer` (RFC 6750 section 3).
// The key's format is checked before any database lookup, inside ApiKeys.authenticate.
import type { Middleware } from 'koa';
import type { Accounts } from '../../accounts/index.js';
import { UnauthorizedError } from '../../errors.js';
import type { AppState } from '../state.js';

const BEARER = /^Bearer +(\S+) *$/i;
const CHALLENGE = { 'WWW-Authenticate': 'Bearer' };

export function auth(accounts: Accounts): Middleware<AppState> {
  return async (ctx, next) => {
    const header = ctx.get('Authorization');
    if (header === '') {
      throw new UnauthorizedError('Missing API key: send the header `Authorization: Bearer <API key>`.', {
        headers: CHALLENGE,
      });
    }
    const presented = BEARER.exec(header)?.[1];
    if (presented === undefined) {
      throw new UnauthorizedError('Malformed Authorization header: expected `Bearer <API key>`.', {
        headers: CHALLENGE,
      });
    }
    const principal = await accounts.keys.authenticate(presented);
    if (!principal) {
      throw new UnauthorizedError(
        'Invalid API key: it is malformed, unknown or revoked. Keys look like pdn_live_ or pdn_test_ followed by 32 lowercase hex digits.',
        { headers: CHALLENGE },
      );
    }
    ctx.state.principal = principal;
    // Test and live keys are told apart in the logs (v1 specification, Authentication).
    ctx.state.log = ctx.state.log.child({
      user: principal.owner,
      key: principal.keyId,
      key_kind: principal.keyKind,
    });
    await next();
  };
}

// `pdn login` (accounts/device-logins.ts, RFC 8628's shape): two JSON endpoints for the CLI, outside
// /api/v1 because the CLI has no key yet, and the pages where the signed-in owner enters the code and
// approves or denies. The JSON endpoints take urlencoded forms as RFC 8628 does, answer its error
// codes with 400, and are throttled per address. A user code entered on the page or posted with the
// decision counts against the address and the account unless it proves real, and against the code
// itself in any case (throttle.ts, deviceCodeAttempts), so the codes cannot be guessed by trying: a
// form posted without the page is counted as the page is.
import type { Middleware } from 'koa';
import {
  clientAddressKey,
  displayUserCode,
  MISSED_CODE_RULES,
  type Reservation,
  RULES,
  userCodeKey,
} from '../../../accounts/index.js';
import type { AppContext, AppState } from '../../state.js';
import type { AreaDeps } from '../deps.js';
import { readFormBody } from '../form-guard.js';
import { publicBaseUrl } from '../public-url.js';
import { sendPage } from '../render.js';
import { viewerOf } from '../viewer.js';
import { DeviceConfirmPage, DeviceDonePage, DeviceEntryPage } from '../views/device.js';
import { waitText } from '../views/time.js';

const GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

function answerJson(ctx: AppContext, status: number, body: Record<string, unknown>): void {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
}

/** RFC 8628's error answer: `error` is one of its codes, `error_description` for people. */
const refuse = (ctx: AppContext, error: string, description: string, status = 400) =>
  answerJson(ctx, status, { error, error_description: description });

async function formOf(ctx: AppContext): Promise<URLSearchParams | undefined> {
  if (!ctx.is('application/x-www-form-urlencoded')) return undefined;
  try {
    return new URLSearchParams(await readFormBody(ctx));
  } catch {
    return undefined;
  }
}

/** POST /account/device/code: a device code and a user code for a CLI on `client_name`. */
export function deviceCode(deps: AreaDeps): Middleware<AppState> {
  return async (ctx) => {
    const form = await formOf(ctx);
    if (form === undefined)
      return refuse(ctx, 'invalid_request', 'Send an application/x-www-form-urlencoded form.');
    const address = clientAddressKey(ctx.ip);
    const decision = await deps.accounts.throttle.reserve([[RULES.deviceStartAddress, address]]);
    if (!decision.reserved) {
      ctx.set('Retry-After', String(decision.waitSeconds));
      return refuse(
        ctx,
        'slow_down',
        `Too many sign-ins started from your address. Try again in ${waitText(decision.waitSeconds)}.`,
        429,
      );
    }
    const started = await deps.accounts.deviceLogins.start(form.get('client_name') ?? '', address);
    const page = `${publicBaseUrl(deps, ctx)}/account/device`;
    const userCode = displayUserCode(started.userCode);
    answerJson(ctx, 200, {
      device_code: started.deviceCode,
      user_code: userCode,
      verification_uri: page,
      verification_uri_complete: `${page}?code=${userCode}`,
      expires_in: started.expiresInMs / 1000,
      interval: started.intervalMs / 1000,
    });
  };
}

/** POST /account/device/token: the CLI's poll; once approved, a new key, once. */
export function deviceToken(deps: AreaDeps): Middleware<AppState> {
  return async (ctx) => {
    const form = await formOf(ctx);
    if (form === undefined)
      return refuse(ctx, 'invalid_request', 'Send an application/x-www-form-urlencoded form.');
    if (form.get('grant_type') !== GRANT_TYPE)
      return refuse(ctx, 'unsupported_grant_type', `grant_type must be ${GRANT_TYPE}.`);
    const answer = await deps.accounts.deviceLogins.poll(form.get('device_code') ?? '');
    if ('error' in answer) return refuse(ctx, answer.error, DESCRIPTIONS[answer.error]);
    const { userId, clientName } = answer.granted;
    const { key, record } = await deps.accounts.keys.create(userId, 'live', `pdn CLI on ${clientName}`);
    answerJson(ctx, 200, {
      access_token: key,
      token_type: 'Bearer',
      key_id: record.id,
      key_name: record.name,
      owner: record.owner,
    });
  };
}

const DESCRIPTIONS = {
  authorization_pending: 'Waiting for the code to be approved in the browser.',
  slow_down: 'Polling too often: wait longer between polls.',
  access_denied: 'The sign-in was denied in the browser.',
  expired_token: 'The code expired before it was approved. Start again.',
  invalid_grant: 'This device code is unknown or already used. Start again.',
} as const;

/**
 * Counts one try of `code` by the viewer, before it is looked up (as a failed sign-in is counted before
 * the password is checked); undefined when a bucket is full, and the refusal is sent.
 */
async function countTry(deps: AreaDeps, ctx: AppContext, code: string): Promise<Reservation | undefined> {
  const viewer = viewerOf(ctx);
  const { throttle } = deps.accounts;
  const attempts = throttle.deviceCodeAttempts(userCodeKey(code), viewer.userId, clientAddressKey(ctx.ip));
  const decision = await throttle.reserve(attempts);
  if (decision.reserved) return decision.reservation;
  ctx.set('Retry-After', String(decision.waitSeconds));
  const error = `Too many codes tried. Try again in ${waitText(decision.waitSeconds)}.`;
  sendPage(ctx, <DeviceEntryPage viewer={viewer} error={error} code={code} />, 429);
  return undefined;
}

/** GET /account/device: the code's entry form, or with `?code=` what is asking, to approve. */
export function devicePage(deps: AreaDeps): Middleware<AppState> {
  return async (ctx) => {
    const viewer = viewerOf(ctx);
    const code = typeof ctx.query.code === 'string' ? ctx.query.code.slice(0, 20) : '';
    if (code === '') return sendPage(ctx, <DeviceEntryPage viewer={viewer} />);
    const reservation = await countTry(deps, ctx, code);
    if (reservation === undefined) return;
    const login = await deps.accounts.deviceLogins.pending(code);
    if (login === undefined) {
      const error =
        'That code matches no sign-in waiting for approval: check it, or run pdn login again (codes last 15 minutes).';
      return sendPage(ctx, <DeviceEntryPage viewer={viewer} error={error} code={code} />, 404);
    }
    await deps.accounts.throttle.release(reservation, MISSED_CODE_RULES);
    sendPage(ctx, <DeviceConfirmPage viewer={viewer} login={login} />);
  };
}

/** POST /account/device: the owner's approval or denial. */
export function deviceDecide(deps: AreaDeps): Middleware<AppState> {
  return async (ctx) => {
    const viewer = viewerOf(ctx);
    const form = ctx.state.page?.form ?? new URLSearchParams();
    const approved = form.get('decision') === 'approve';
    const code = (form.get('code') ?? '').slice(0, 20);
    const reservation = await countTry(deps, ctx, code);
    if (reservation === undefined) return;
    if (!(await deps.accounts.deviceLogins.decide(code, viewer.userId, approved))) {
      const error = 'That sign-in is no longer waiting: it expired, or was approved or denied already.';
      return sendPage(ctx, <DeviceEntryPage viewer={viewer} error={error} />, 409);
    }
    await deps.accounts.throttle.release(reservation, MISSED_CODE_RULES);
    sendPage(ctx, <DeviceDonePage viewer={viewer} approved={approved} />);
  };
}

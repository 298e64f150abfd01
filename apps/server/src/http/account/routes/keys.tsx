// The API keys page: list, create and roll (the full key shown once, on the answer to the POST
// itself, never stored), rename, and revoke after a confirmation. Keys are looked up and changed with
// the viewer's user id, so another user's key id is a 404 like an unknown one.
import type { Middleware } from 'koa';
import {
  type Accounts,
  type ApiKeyRecord,
  checkKeyName,
  InvalidKeyNameError,
  isActive,
  type KeyKind,
} from '../../../accounts/index.js';
import { NotFoundError } from '../../../errors.js';
import type { AppContext, AppState } from '../../state.js';
import type { AreaDeps } from '../deps.js';
import { publicBaseUrl } from '../public-url.js';
import { seeOther, sendPage } from '../render.js';
import { viewerOf } from '../viewer.js';
import { KeyCreatedPage, KeysPage, RenamePage, RevokePage, ROLL_GRACES, RollPage } from '../views/keys.js';

async function activeKeys(accounts: Accounts, userId: number): Promise<ApiKeyRecord[]> {
  const now = Date.now();
  return (await accounts.keys.list(userId)).filter((key) => isActive(key, now));
}

const NOTICES: Record<string, string> = {
  welcome: 'Welcome! Your account is ready. Create a key to start calling the API.',
  revoked: 'The key is revoked. Requests made with it are refused from now on.',
  renamed: 'The key is renamed.',
};

/** The name in the form, checked; or what to say about it. */
function nameFrom(form: URLSearchParams): { name: string } | { error: string } {
  try {
    const name = checkKeyName(form.get('name') ?? '');
    if (name === '') return { error: 'Give the key a name, so you can tell it from your others later.' };
    return { name };
  } catch (caught) {
    if (!(caught instanceof InvalidKeyNameError)) throw caught;
    return { error: `Choose another name: ${caught.message}.` };
  }
}

export function keysPage(deps: AreaDeps): Middleware<AppState> {
  return async (ctx) => {
    const viewer = viewerOf(ctx);
    const notice = Object.keys(NOTICES).find((name) => ctx.query[name] !== undefined);
    const keys = await activeKeys(deps.accounts, viewer.userId);
    sendPage(
      ctx,
      <KeysPage viewer={viewer} keys={keys} now={Date.now()} notice={notice && NOTICES[notice]} />,
    );
  };
}

export function createKey(deps: AreaDeps): Middleware<AppState> {
  return async (ctx) => {
    const viewer = viewerOf(ctx);
    const form = ctx.state.page?.form ?? new URLSearchParams();
    const kindField = form.get('kind');
    const kind: KeyKind | undefined = kindField === 'live' || kindField === 'test' ? kindField : undefined;
    const named = nameFrom(form);
    if (kind === undefined || 'error' in named) {
      const error = 'error' in named ? named.error : 'Choose whether the key is a live or a test key.';
      const keys = await activeKeys(deps.accounts, viewer.userId);
      return sendPage(ctx, <KeysPage viewer={viewer} keys={keys} now={Date.now()} error={error} />, 400);
    }
    const { key, record } = await deps.accounts.keys.create(viewer.userId, kind, named.name);
    sendPage(
      ctx,
      <KeyCreatedPage viewer={viewer} secret={key} record={record} baseUrl={publicBaseUrl(deps, ctx)} />,
    );
  };
}

async function ownActiveKey(deps: AreaDeps, ctx: AppContext, userId: number): Promise<ApiKeyRecord> {
  const id = String(ctx.params?.id ?? '');
  const record = (await activeKeys(deps.accounts, userId)).find((key) => key.id === id);
  if (!record) throw new NotFoundError('There is no such active key among yours.');
  return record;
}

export function renameForm(deps: AreaDeps): Middleware<AppState> {
  return async (ctx) => {
    const viewer = viewerOf(ctx);
    sendPage(ctx, <RenamePage viewer={viewer} record={await ownActiveKey(deps, ctx, viewer.userId)} />);
  };
}

export function renameSubmit(deps: AreaDeps): Middleware<AppState> {
  return async (ctx) => {
    const viewer = viewerOf(ctx);
    const record = await ownActiveKey(deps, ctx, viewer.userId);
    const named = nameFrom(ctx.state.page?.form ?? new URLSearchParams());
    if ('error' in named)
      return sendPage(ctx, <RenamePage viewer={viewer} record={record} error={named.error} />, 400);
    if (!(await deps.accounts.keys.rename(record.id, viewer.userId, named.name)))
      throw new NotFoundError('There is no such active key among yours.');
    seeOther(ctx, '/account/keys?renamed');
  };
}

/** A key of the viewer's that can be rolled: active, and not rolled already (counting down). */
async function ownRollableKey(deps: AreaDeps, ctx: AppContext, userId: number): Promise<ApiKeyRecord> {
  const record = await ownActiveKey(deps, ctx, userId);
  if (record.expiresAt !== null) throw new NotFoundError('This key was rolled already: roll its successor.');
  return record;
}

export function rollConfirm(deps: AreaDeps): Middleware<AppState> {
  return async (ctx) => {
    const viewer = viewerOf(ctx);
    sendPage(ctx, <RollPage viewer={viewer} record={await ownRollableKey(deps, ctx, viewer.userId)} />);
  };
}

export function rollSubmit(deps: AreaDeps): Middleware<AppState> {
  return async (ctx) => {
    const viewer = viewerOf(ctx);
    const old = await ownRollableKey(deps, ctx, viewer.userId);
    const chosen = ctx.state.page?.form?.get('grace');
    const grace = ROLL_GRACES.find((offered) => offered.value === chosen);
    if (grace === undefined) return sendPage(ctx, <RollPage viewer={viewer} record={old} />, 400);
    const rolled = await deps.accounts.keys.roll(old.id, viewer.userId, grace.ms);
    // Rolled meanwhile (another tab) or revoked: nothing to show a secret for.
    if (rolled === undefined) throw new NotFoundError('This key was rolled or revoked meanwhile.');
    const now = Date.now();
    sendPage(
      ctx,
      <KeyCreatedPage
        viewer={viewer}
        secret={rolled.key}
        record={rolled.record}
        baseUrl={publicBaseUrl(deps, ctx)}
        replaces={{ ...old, expiresAt: now + grace.ms }}
        now={now}
      />,
    );
  };
}

export function revokeConfirm(deps: AreaDeps): Middleware<AppState> {
  return async (ctx) => {
    const viewer = viewerOf(ctx);
    sendPage(ctx, <RevokePage viewer={viewer} record={await ownActiveKey(deps, ctx, viewer.userId)} />);
  };
}

export function revokeSubmit(deps: AreaDeps): Middleware<AppState> {
  return async (ctx) => {
    const viewer = viewerOf(ctx);
    const id = String(ctx.params?.id ?? '');
    if (!(await deps.accounts.keys.revoke(id, viewer.userId)))
      throw new NotFoundError('There is no such active key among yours.');
    seeOther(ctx, '/account/keys?revoked');
  };
}

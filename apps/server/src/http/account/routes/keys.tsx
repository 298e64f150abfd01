// The API keys page: list, create (the full key shown once, on the answer to the POST
// itself, never stored), and revoke after a confirmation. Keys are looked up and revoked with the
// viewer's user id, so another user's key id is a 404 like an unknown one.
import type { Middleware } from 'koa';
import {
  type Accounts,
  type ApiKeyRecord,
  checkKeyName,
  InvalidKeyNameError,
  type KeyKind,
} from '../../../accounts/index.js';
import { NotFoundError } from '../../../errors.js';
import type { AppContext, AppState } from '../../state.js';
import type { AreaDeps } from '../deps.js';
import { seeOther, sendPage } from '../render.js';
import { viewerOf } from '../viewer.js';
import { KeyCreatedPage, KeysPage, RevokePage } from '../views/keys.js';

async function activeKeys(accounts: Accounts, userId: number): Promise<ApiKeyRecord[]> {
  return (await accounts.keys.list(userId)).filter((key) => key.revokedAt === null);
}

const NOTICES: Record<string, string> = {
  welcome: 'Welcome! Your account is ready. Create a key to start calling the API.',
  revoked: 'The key is revoked. Requests made with it are refused from now on.',
};

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
    let name = '';
    let error: string | undefined;
    try {
      name = checkKeyName(form.get('name') ?? '');
      if (name === '') error = 'Give the key a name, so you can tell it from your others later.';
    } catch (caught) {
      if (!(caught instanceof InvalidKeyNameError)) throw caught;
      error = `Choose another name: ${caught.message}.`;
    }
    if (kind === undefined) error = 'Choose whether the key is a live or a test key.';
    if (error !== undefined || kind === undefined) {
      const keys = await activeKeys(deps.accounts, viewer.userId);
      return sendPage(ctx, <KeysPage viewer={viewer} keys={keys} now={Date.now()} error={error} />, 400);
    }
    const { key, record } = await deps.accounts.keys.create(viewer.userId, kind, name);
    // Where this page was reached is where the API is, unless the operator named the public address.
    const baseUrl = deps.config.account.publicUrl ?? ctx.origin;
    sendPage(ctx, <KeyCreatedPage viewer={viewer} secret={key} record={record} baseUrl={baseUrl} />);
  };
}

async function ownActiveKey(deps: AreaDeps, ctx: AppContext, userId: number): Promise<ApiKeyRecord> {
  const id = String(ctx.params?.id ?? '');
  const record = (await activeKeys(deps.accounts, userId)).find((key) => key.id === id);
  if (!record) throw new NotFoundError('There is no such active key among yours.');
  return record;
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

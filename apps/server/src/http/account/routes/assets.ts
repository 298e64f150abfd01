// The account area's stylesheet and script, ours and small, served by fixed name from assets/account
// (read once at start-up), so no request path ever reaches the file system.
import { readFileSync } from 'node:fs';
import type { Middleware } from 'koa';
import type { AppState } from '../../state.js';

export const ACCOUNT_ASSETS = {
  'account.css': 'text/css; charset=utf-8',
  'account.js': 'text/javascript; charset=utf-8',
} as const;
export type AccountAsset = keyof typeof ACCOUNT_ASSETS;

// src/http/account/routes and dist/http/account/routes are both four levels below the package.
const FOLDER = new URL('../../../../assets/account/', import.meta.url);

export function assetRoute(asset: AccountAsset): Middleware<AppState> {
  const body = readFileSync(new URL(asset, FOLDER));
  return (ctx) => {
    ctx.type = ACCOUNT_ASSETS[asset];
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = body;
  };
}

// Sends a page: Preact renders it to a string on the server, escaping every value by construction.
import type { VNode } from 'preact';
import { render } from 'preact-render-to-string';
import type { AppContext } from '../state.js';

export function sendPage(ctx: AppContext, page: VNode, status = 200): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = `<!doctype html>\n${render(page)}`;
}

/** After a successful POST: 303 so that reloading the next page does not send the form again. */
export function seeOther(ctx: AppContext, path: string): void {
  // Koa keeps a redirect status already set instead of its default 302.
  ctx.status = 303;
  ctx.redirect(path);
}

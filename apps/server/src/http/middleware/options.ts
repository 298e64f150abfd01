// OPTIONS on an API path the router knows, when CORS did not answer it (cors.ts answers the preflights
// of allowed origins): 204 with `Allow`, the methods the path offers (RFC 9110 section 9.3.7), and no
// Access-Control-* header. A browser reads that as what it is, a server that does not allow the page's
// origin ("No 'Access-Control-Allow-Origin' header is present"), where a 405 read as a server fault
// ("does not have HTTP ok status"). OPTIONS is not counted, needs no key and does nothing.
import type { Middleware } from 'koa';
import type { AppState } from '../state.js';

export function optionsAnswer(): Middleware<AppState> {
  return async (ctx, next) => {
    // @koa/router leaves the layers whose path matched (whatever their method) in ctx.matched.
    const layers = (ctx as { matched?: { methods: string[] }[] }).matched ?? [];
    const allowed = [...new Set(layers.flatMap((layer) => layer.methods))];
    if (ctx.method !== 'OPTIONS' || !ctx.path.startsWith('/api/') || allowed.length === 0) return next();
    ctx.set('Allow', allowed.join(', '));
    ctx.status = 204;
  };
}

// GET /docs: Swagger UI from the swagger-ui-dist package, served by this server (no CDN), pointed at
// /openapi.json by our own small script (assets/docs/docs.js). Only the three files the page uses are
// served, by fixed name, so no request path ever reaches the file system.
import { createReadStream, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Middleware } from 'koa';
import type { AppState } from '../state.js';

export const DOCS_ASSETS = {
  'swagger-ui.css': 'text/css',
  'swagger-ui-bundle.js': 'application/javascript',
  'docs.js': 'application/javascript',
} as const;
export type DocsAsset = keyof typeof DOCS_ASSETS;

// The viewport tag: without it a phone lays the page out 980 px wide and shrinks it to fit. The empty
// icon spares the browser asking for /favicon.ico, which this server does not have.
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>pdn API</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/docs.js"></script>
</body>
</html>
`;

/**
 * The page's headers. Scripts, styles and calls ("Try it out", the document) from this server only,
 * and `data:` images, Swagger UI's icons in swagger-ui.css (its components set their inline styles
 * through the DOM, which a policy does not block); no other site may frame the page (a framed
 * "Execute" button could be clicked on the user's behalf with the key they entered), as the account
 * pages also refuse. test/src/docs-browser.test.ts runs every operation under it in Chromium.
 */
export const DOCS_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
    "connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

export function docsPageRoute(): Middleware<AppState> {
  return (ctx) => {
    ctx.set(DOCS_PAGE_HEADERS);
    ctx.type = 'text/html';
    ctx.body = PAGE;
  };
}

// src/http/routes and dist/http/routes are both three levels below the package.
const OWN_ASSETS = new URL('../../../assets/docs/', import.meta.url);

export function docsAssetRoute(asset: DocsAsset): Middleware<AppState> {
  const cache = 'public, max-age=3600';
  if (asset === 'docs.js') {
    const body = readFileSync(new URL(asset, OWN_ASSETS));
    return (ctx) => {
      ctx.type = DOCS_ASSETS[asset];
      ctx.set('Cache-Control', cache);
      ctx.body = body;
    };
  }
  const folder = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  return (ctx) => {
    ctx.type = DOCS_ASSETS[asset];
    ctx.set('Cache-Control', cache);
    ctx.body = createReadStream(join(folder, asset));
  };
}

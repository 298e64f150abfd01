// GET /docs (issue #2): Swagger UI from the swagger-ui-dist package, served by this server (no CDN),
// pointed at /openapi.json, with `validatorUrl: null` (otherwise the page sends the document's URL to
// validator.swagger.io for a badge: a call to another host). Only the two assets the page uses are
// served, by fixed name, so no request path ever reaches the file system.
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Middleware } from 'koa';
import type { AppState } from '../state.js';

export const DOCS_ASSETS = {
  'swagger-ui.css': 'text/css',
  'swagger-ui-bundle.js': 'application/javascript',
} as const;
export type DocsAsset = keyof typeof DOCS_ASSETS;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>pdn API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', validatorUrl: null });
  </script>
</body>
</html>
`;

export function docsPageRoute(): Middleware<AppState> {
  return (ctx) => {
    ctx.type = 'text/html';
    ctx.body = PAGE;
  };
}

export function docsAssetRoute(asset: DocsAsset): Middleware<AppState> {
  const folder = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  return (ctx) => {
    ctx.type = DOCS_ASSETS[asset];
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = createReadStream(join(folder, asset));
  };
}

// GET /openapi.json: the contract itself, as built into @pdn/api-types from openapi/.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Middleware } from 'koa';
import type { AppState } from '../state.js';

export function openapiRoute(): Middleware<AppState> {
  const path = createRequire(import.meta.url).resolve('@pdn/api-types/openapi.json');
  const document: unknown = JSON.parse(readFileSync(path, 'utf8'));
  return (ctx) => {
    ctx.body = document;
  };
}

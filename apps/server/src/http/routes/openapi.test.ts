// The contract lists every status and path the server answers, including those no
// operation handler produces: the router's 404/405 (middleware/unmatched.ts) and the /docs assets.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { DOCS_ASSETS } from './docs.js';

interface Document {
  info: { description: string };
  paths: Record<string, { get?: { parameters?: { schema: { enum?: string[] } }[]; responses: object } }>;
}
const document = JSON.parse(
  readFileSync(createRequire(import.meta.url).resolve('@pdn/api-types/openapi.json'), 'utf8'),
) as Document;

describe('openapi.json', () => {
  it('documents the 404 for unknown routes and the 405 with its Allow header', () => {
    expect(document.info.description).toMatch(/not list is `404 not_found`/);
    expect(document.info.description).toMatch(/`405 method_not_allowed`, with an `Allow` header/);
  });

  it('documents exactly the /docs assets the server serves, and 404 for others', () => {
    const operation = document.paths['/docs/{asset}']?.get;
    expect(operation?.parameters?.[0]?.schema.enum).toEqual(Object.keys(DOCS_ASSETS));
    expect(Object.keys(operation?.responses ?? {})).toEqual(['200', '404', '503', '507']);
  });
});

// The /docs page must work offline: nothing in it may reach for another host (no CDN), and its
// Content-Security-Policy holds it to that.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../state.js';
import { docsPageRoute } from './docs.js';

function page(): { body: string; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  const ctx = {
    set: (fields: Record<string, string>) => Object.assign(headers, fields),
  } as unknown as AppContext;
  void docsPageRoute()(ctx, async () => {});
  return { body: String(ctx.body), headers };
}

const script = readFileSync(new URL('../../../assets/docs/docs.js', import.meta.url), 'utf8');

describe('GET /docs page', () => {
  it('turns off Swagger UI spec validation, which would call validator.swagger.io', () => {
    expect(script).toMatch(/SwaggerUIBundle\(\{[^}]*validatorUrl: null/);
  });

  it('loads its scripts and styles from this server only, and the document from /openapi.json', () => {
    const urls = [...page().body.matchAll(/(?:src|href)=['"]([^'"]+)['"]/g)].map((m) => m[1]);
    expect(urls).toEqual(['data:,', '/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/docs.js']);
    expect([...script.matchAll(/url: '([^']+)'/g)].map((m) => m[1])).toEqual(['/openapi.json']);
  });

  it('has no inline script, so its policy can allow scripts from this server alone', () => {
    expect(page().body).not.toMatch(/<script>/);
    expect(page().headers['Content-Security-Policy']).toMatch(/script-src 'self';/);
  });

  it('is laid out for the device width and refuses to be framed', () => {
    expect(page().body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(page().headers['X-Frame-Options']).toBe('DENY');
    expect(page().headers['Content-Security-Policy']).toMatch(/frame-ancestors 'none'/);
  });
});

// The /docs page must work offline: nothing in it may reach for another host (issue #2, no CDN).
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../state.js';
import { docsPageRoute } from './docs.js';

function page(): string {
  const ctx = {} as AppContext;
  void docsPageRoute()(ctx, async () => {});
  return String(ctx.body);
}

describe('GET /docs page', () => {
  it('turns off Swagger UI spec validation, which would call validator.swagger.io', () => {
    expect(page()).toMatch(/SwaggerUIBundle\(\{[^}]*validatorUrl: null/);
  });

  it('loads its script and styles from this server only', () => {
    const urls = [...page().matchAll(/(?:src|href|url)[=:]\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);
    expect(urls).toEqual(['/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/openapi.json']);
  });
});

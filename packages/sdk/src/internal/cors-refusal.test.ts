// The check behind CorsRefusalError with an injected fetch that behaves as a browser's does: a
// cross-origin call the server does not allow fails with a TypeError, while a `no-cors` request to a
// server that answers gets an opaque answer; a server that is down fails both.
import { describe, expect, it } from 'vitest';
import { corsRefusedOrigin, pageOrigin } from './cors-refusal.js';

const api = 'http://127.0.0.1:3000/api/v1/languages';
const page = 'http://127.0.0.1:5173';
const failed = new TypeError('Failed to fetch');

function browserFetch(serverUp: boolean): typeof fetch {
  return async (_input, init) => {
    if (serverUp && init?.mode === 'no-cors') return new Response(null, { status: 200 });
    throw new TypeError('Failed to fetch');
  };
}

describe('corsRefusedOrigin', () => {
  const table: Array<
    [string, { up: boolean; origin: string | undefined; cause: unknown; want: string | undefined }]
  > = [
    [
      'a server that answers, from another origin: refused',
      { up: true, origin: page, cause: failed, want: page },
    ],
    ['a server that is down', { up: false, origin: page, cause: failed, want: undefined }],
    ['not in a page (Node)', { up: true, origin: undefined, cause: failed, want: undefined }],
    [
      'the same origin: never CORS',
      { up: true, origin: 'http://127.0.0.1:3000', cause: failed, want: undefined },
    ],
    [
      'an abort, not a TypeError',
      { up: true, origin: page, cause: new DOMException('x', 'AbortError'), want: undefined },
    ],
  ];
  it.each(table)('%s', async (_name, { up, origin, cause, want }) => {
    expect(await corsRefusedOrigin(browserFetch(up), api, cause, origin)).toBe(want);
  });
});

describe('pageOrigin', () => {
  it.each<[string, { location?: { origin?: string } }, string | undefined]>([
    ['a page', { location: { origin: page } }, page],
    ['Node', {}, undefined],
    ['an opaque origin (a sandboxed frame, file:)', { location: { origin: 'null' } }, undefined],
  ])('%s', (_name, globals, want) => {
    expect(pageOrigin(globals)).toBe(want);
  });
});

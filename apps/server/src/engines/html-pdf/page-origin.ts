// Where a page lives while it is printed: an origin that cannot exist (`.invalid`, RFC 2606), whose
// every answer comes from the upload. The page's router (Playwright's `route`, the DevTools protocol's
// Fetch domain) sees each request before the network would: a path of the upload is answered with its
// bytes, anything else (another host, this one's unknown paths, `file:`) is refused there and listed.
// `data:` URLs never reach the router and load as they are: they carry their own bytes.
import { extname } from 'node:path';
import type { Route } from 'playwright-core';
import type { HtmlPage } from './types.js';

export const PAGE_ORIGIN = 'http://page.pdn.invalid';
export const PAGE_URL = `${PAGE_ORIGIN}/index.html`;
/** The page's name among its files, where it is served. */
export const INDEX = 'index.html';

/** How many refused URLs an answer lists, and how much of each. */
const MAX_BLOCKED = 20;
const MAX_URL_LENGTH = 300;

/** By extension, what a browser needs told; the rest it sniffs, or takes as bytes. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html',
  '.htm': 'text/html',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.bmp': 'image/bmp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.txt': 'text/plain',
  '.xml': 'application/xml',
};

function contentType(name: string): string {
  return CONTENT_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';
}

/** Answers the page's requests from its upload, and remembers what it refused. */
export class PageOrigin {
  readonly #files: ReadonlyMap<string, string>;
  readonly blocked: string[] = [];

  constructor(page: HtmlPage) {
    this.#files = new Map([
      [INDEX, page.html.path],
      ...page.assets.map((asset): [string, string] => [asset.name, asset.path]),
    ]);
  }

  /** The upload's file at `url`, if `url` is on the page's origin and names one. */
  fileAt(url: string): { name: string; path: string } | undefined {
    const parsed = new URL(url);
    if (parsed.origin !== PAGE_ORIGIN) return undefined;
    let name: string;
    try {
      name = decodeURIComponent(parsed.pathname.slice(1));
    } catch {
      return undefined;
    }
    const path = this.#files.get(name === '' ? INDEX : name);
    return path === undefined ? undefined : { name, path };
  }

  /** Playwright's route handler for every request of the page's context. */
  readonly route = async (route: Route): Promise<void> => {
    const url = route.request().url();
    const file = this.fileAt(url);
    if (file === undefined) {
      if (this.blocked.length < MAX_BLOCKED) this.blocked.push(url.slice(0, MAX_URL_LENGTH));
      await route.abort('blockedbyclient').catch(() => undefined);
      return;
    }
    await route
      .fulfill({
        path: file.path,
        contentType: contentType(file.name === '' ? INDEX : file.name),
        headers: { 'cache-control': 'no-store' },
      })
      .catch(() => undefined);
  };
}

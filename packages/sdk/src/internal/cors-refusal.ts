// In a browser, a call refused by CORS and a server that is down look alike to the page: fetch fails
// with a TypeError ("Failed to fetch"), no status, no body (Fetch standard, "CORS check"). They differ
// in what a `no-cors` request gets: an opaque answer from a server that answered, a failure from one
// that did not. So after a cross-origin call fails that way, the SDK asks the same URL once with `HEAD`
// in `no-cors` mode, which needs no permission of the server and lets the page read nothing: an
// answer means the server is there and the origin is what it refused.

/** How long the check may take: a server that answered a moment ago answers fast. */
const PROBE_TIMEOUT_MS = 5_000;

interface PageLocation {
  origin?: string;
}

/** The page's origin when the SDK runs in a page (or a worker), else undefined. */
export function pageOrigin(globals: { location?: PageLocation } = globalThis as never): string | undefined {
  const origin = globals.location?.origin;
  return typeof origin === 'string' && origin !== 'null' ? origin : undefined;
}

/**
 * The page's origin when the failure of `url`'s fetch (`cause`) was a CORS refusal, else undefined.
 * Only a cross-origin call from a page can be one, and only a TypeError from fetch.
 */
export async function corsRefusedOrigin(
  fetch: typeof globalThis.fetch,
  url: string,
  cause: unknown,
  origin: string | undefined = pageOrigin(),
): Promise<string | undefined> {
  if (origin === undefined || !(cause instanceof TypeError)) return undefined;
  if (new URL(url).origin === origin) return undefined;
  try {
    await fetch(url, { method: 'HEAD', mode: 'no-cors', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    return origin;
  } catch {
    return undefined;
  }
}

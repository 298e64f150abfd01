// Which JavaScript runtime the SDK runs in, for two decisions: the User-Agent it sends,
// and whether a request body may be a stream. Server runtimes (Node, Bun, Deno) may set User-Agent
// and stream an upload over HTTP/1.1. Browsers may do neither: Chrome drops a User-Agent set on
// fetch and streams request bodies only over HTTP/2 (fetch fails with ERR_H2_OR_QUIC_REQUIRED on
// HTTP/1.1); so there the SDK sends no client header at all and hands fetch a Blob.

export interface Runtime {
  /** `node/20.20.0 linux`; `undefined` where a script may not set User-Agent (browsers, workers). */
  userAgent: string | undefined;
  /** Whether fetch can send a ReadableStream body over HTTP/1.1. */
  streamsUploads: boolean;
}

interface Globals {
  process?: { versions?: { node?: string; bun?: string }; platform?: string };
  Deno?: { version?: { deno?: string }; build?: { os?: string } };
}

export function detectRuntime(globals: Globals = globalThis as Globals): Runtime {
  const deno = globals.Deno?.version?.deno;
  if (deno !== undefined) return server(`deno/${deno} ${globals.Deno?.build?.os ?? 'unknown'}`);
  const versions = globals.process?.versions;
  const platform = globals.process?.platform ?? 'unknown';
  if (versions?.bun !== undefined) return server(`bun/${versions.bun} ${platform}`);
  if (versions?.node !== undefined) return server(`node/${versions.node} ${platform}`);
  return { userAgent: undefined, streamsUploads: false };
}

function server(userAgent: string): Runtime {
  return { userAgent, streamsUploads: true };
}

// Answers given before the request body has all arrived: a 413 while an upload streams, a 400 for an
// undeclared part, a 401 or 429 before any of it is read. Node would then read
// and discard the whole rest of the body to keep the connection (up to requestTimeout: 10 minutes of
// a client's 300 MiB), and closing at once instead resets the connection under a client still
// writing, which then reports ECONNRESET or EPIPE, not the answer. So, as nginx's lingering close
// does: the answer goes out with `Connection: close`, the server reads and throws away what follows
// for a bounded time and amount, so the client gets to read the answer, then closes.
import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import type { Middleware } from 'koa';
import { clientGone } from '../client-gone.js';
import type { AppState } from '../state.js';

/** How much more of an unwanted body is read at most (openapi.yaml, "Upload limits"). */
export const LINGER_BYTES = 64 * 1024 * 1024;
/** For how long at most (openapi.yaml, "Upload limits"). */
export const LINGER_MS = 5_000;

/**
 * `answer`'s bytes at once, then an end once the request body has ended, the client has gone, or the
 * bounds are reached. Koa ends the response when this ends, and Node, seeing `Connection: close`,
 * closes the connection: cleanly when the body was read to its end, with a reset past the bounds.
 */
function lingeringAnswer(answer: Buffer, req: IncomingMessage): Readable {
  const body = new PassThrough();
  body.write(answer);
  let discarded = 0;
  const finish = () => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', finish);
    req.off('close', finish);
    // Nothing more is read: a flowing request would go on reading, and dropping, what the client
    // sends until the connection closes, which on a busy machine comes later.
    req.pause();
    body.end();
  };
  const onData = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_BYTES) finish();
  };
  const timer = setTimeout(finish, LINGER_MS);
  req.on('data', onData);
  req.once('end', finish);
  req.once('close', finish);
  // The parser may have paused the request while it wrote a file it has since abandoned.
  req.resume();
  return body;
}

/** The body as the bytes Koa would send (it serialises objects as JSON). */
function bytesOf(body: unknown): Buffer | undefined {
  if (body === null || body === undefined) return Buffer.alloc(0);
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === 'string') return Buffer.from(body);
  if (typeof body === 'object' && !('pipe' in body)) return Buffer.from(JSON.stringify(body));
  // A stream (a download) answers a GET, whose body, if any, is Node's to drain as usual.
  return undefined;
}

/** Resolves once the parser has taken in what the socket has already brought. */
const parsed = () => new Promise((resolve) => setImmediate(resolve));

export function closeAfterUnreadBody(): Middleware<AppState> {
  return async (ctx, next) => {
    await next();
    // `complete`: Node's parser has seen the whole body (read by us or not). An answer decided in
    // the microtasks after the head (the checks on an embedded server are synchronous underneath) came
    // before the parser went on to a body that arrived with it: one turn later, a small body has
    // (every 503 server_busy closed its connection, the client then opening a new one).
    if (!ctx.req.complete) await parsed();
    if (ctx.req.complete || clientGone(ctx)) return;
    const answer = bytesOf(ctx.body);
    if (answer === undefined) return;
    ctx.set('Connection', 'close');
    ctx.body = lingeringAnswer(answer, ctx.req);
    ctx.length = answer.length;
  };
}

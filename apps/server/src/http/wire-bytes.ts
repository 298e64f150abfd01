// The bytes a request and its answer took on the wire, head and body, as read and written: one count
// that the request's log line and GET /metrics share. Chunked bodies, discarded rests and
// streamed downloads are counted where a declared Content-Length would miss them, and the socket keeps
// these counts for nothing, where counting the streams would cost every request a pass over them.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Context } from 'koa';

export interface WireBytes {
  read: number;
  written: number;
}

/** How much of each connection's traffic earlier requests on it were given. */
const counted = new WeakMap<Socket, WireBytes>();
/** Each request's count, taken once however many ask for it. */
const answered = new WeakMap<IncomingMessage, Promise<WireBytes>>();

/** The traffic the connection carried since the last request on it was counted. */
function sinceLastCount(socket: Socket): WireBytes {
  const before = counted.get(socket) ?? { read: 0, written: 0 };
  const now = { read: socket.bytesRead, written: socket.bytesWritten };
  counted.set(socket, now);
  return { read: now.read - before.read, written: now.written - before.written };
}

/** Resolves once the answer has gone out, or the connection with it, with the request's bytes. */
export function wireBytes(ctx: Pick<Context, 'req' | 'res'>): Promise<WireBytes> {
  let bytes = answered.get(ctx.req);
  if (bytes === undefined) {
    bytes = new Promise((resolve) => {
      const count = () => resolve(sinceLastCount(ctx.req.socket));
      if (ctx.res.closed) count();
      else ctx.res.once('close', count);
    });
    answered.set(ctx.req, bytes);
  }
  return bytes;
}

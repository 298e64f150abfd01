// Whether the client hung up before its answer was sent. The socket, not the request, tells: Node
// marks an IncomingMessage destroyed as soon as its body has been read, with the client still there.
import type { AppContext } from './state.js';

export function clientGone(ctx: AppContext): boolean {
  return ctx.req.socket.destroyed && !ctx.res.writableFinished;
}

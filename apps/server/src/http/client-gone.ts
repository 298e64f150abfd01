// Whether the client hung up before its answer was sent. The socket, not the request, tells: Node
// marks an IncomingMessage destroyed as soon as its body has been read, with the client still there.
import type { AppContext } from './state.js';

export function clientGone(ctx: AppContext): boolean {
  return ctx.req.socket.destroyed && !ctx.res.writableFinished;
}

/** Aborts when the client hangs up before its answer is sent, so work done only for it can stop. */
export function clientGoneSignal(ctx: AppContext): AbortSignal {
  const controller = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) controller.abort(new Error('client closed the connection'));
  });
  return controller.signal;
}

// The node:http server around the app: how it meets slow clients and `Expect: 100-continue`. It does
// not listen; main.ts binds the port (STYLE.md), tests bind port 0.
import { createServer, type Server } from 'node:http';
import type Koa from 'koa';
import type { Logger } from '../logger.js';
import { answerClientErrors, refuseConnect } from './client-error.js';
import type { AppState } from './state.js';

/**
 * Node's HTTP timeouts, set deliberately (slow clients must not hold sockets forever):
 * - headersTimeout: a client gets 20 s to send its request line and headers (slowloris).
 * - requestTimeout: the whole request, body included, must arrive within 10 minutes; enough for a
 *   1 GiB Enterprise upload at ~15 Mbit/s, finite for a client that trickles bytes.
 * - keepAliveTimeout: an idle kept-alive socket is closed after 65 s, longer than the clients that
 *   keep one for a shorter time (undici's fetch 4 s, load balancers such as AWS ALB 60 s), so that
 *   they let go first. At 5 s, a client whose event loop was busy for a few seconds between two calls
 *   (its own CPU work) sent its next POST on a socket the server had just closed, and Node does not
 *   send a POST again: 4 of 20 OCR calls ended in "other side closed". An idle socket costs a file
 *   descriptor and a few KiB.
 * - timeout: a socket with no traffic either way for 10 minutes (e.g. a client that stopped reading a
 *   download) is destroyed; processing is bounded well below that by the engines' tool timeouts.
 */
function applyTimeouts(server: Server): void {
  server.headersTimeout = 20_000;
  server.requestTimeout = 10 * 60_000;
  server.keepAliveTimeout = 65_000;
  server.timeout = 10 * 60_000;
}

export function createHttpServer(app: Koa<AppState>, log: Logger): Server {
  const handle = app.callback();
  // Node answers an HTTP/1.1 request without Host itself, with a bare 400; the app answers it with
  // the envelope instead (middleware/http-rules.ts).
  const server = createServer({ requireHostHeader: false }, handle);
  // `Expect: 100-continue` (RFC 9110 section 10.1.1): by default Node says "continue" at once; routed
  // through the app instead, a 401, 429 or announced 413 goes out before the client sends its body,
  // and the uploads middleware says "continue" only when it starts reading.
  server.on('checkContinue', handle);
  // Any other expectation: Node's default is a bare 417; the app's is the envelope (http-rules.ts).
  server.on('checkExpectation', handle);
  server.on('clientError', answerClientErrors(log));
  server.on('connect', refuseConnect(log));
  applyTimeouts(server);
  return server;
}

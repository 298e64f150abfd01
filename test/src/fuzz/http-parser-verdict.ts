// How Node's HTTP parser takes a request's bytes, judged by the consumer itself (STYLE.md, 24): a bare
// node:http server, configured like the reference server's (no Host requirement), reads each request
// to its end. A request it refuses, in the head or in a chunked body, is one the reference server's
// HTTP layer answers before any route (openapi.yaml, "Errors from the HTTP layer"); one whose framing
// promises more bytes than were sent leaves the server waiting, with nothing to answer yet.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openSocket } from '../harness/raw-request.js';

/**
 * How the parser took the first request on a connection (what came after it is another request):
 * - `complete`: parsed to the end of its body;
 * - `refused-head`: its head was refused;
 * - `refused-body`: the head was taken, then the body refused (a chunk that lies);
 * - `incomplete`: the parser waits for more of it.
 */
export type Verdict = 'complete' | 'refused-head' | 'refused-body' | 'incomplete';

/** Longer than the parser needs for bytes already on the loopback; shorter than any HTTP timeout. */
const IDLE_MS = 300;

export class HttpParserVerdict {
  #request: IncomingMessage | undefined;
  /** Set once the verdict is taken: the parser's complaint about the hang-up that follows is not one. */
  #judged = false;
  #refused = false;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<HttpParserVerdict> {
    const server = createServer({ requireHostHeader: false });
    const verdict = new HttpParserVerdict(server);
    server.on('request', (req, res) => {
      verdict.#request ??= req;
      req.on('error', () => {});
      req.resume();
      req.on('end', () => res.writeHead(204, { connection: 'close' }).end());
    });
    server.on('checkContinue', (req, res) => server.emit('request', req, res));
    server.on('checkExpectation', (req, res) => server.emit('request', req, res));
    server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
      // A client hanging up is not a refusal of its bytes.
      // `complete` is set by the parser itself, the moment the first message ends: a refusal after
      // that concerns the bytes after it.
      if (error.code !== 'ECONNRESET' && !verdict.#judged && verdict.#request?.complete !== true)
        verdict.#refused = true;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return verdict;
  }

  /** How Node's parser takes `bytes`, sent whole on a fresh connection that stays open. */
  async judge(bytes: Buffer): Promise<Verdict> {
    this.#request = undefined;
    this.#judged = false;
    this.#refused = false;
    const { port } = this.server.address() as AddressInfo;
    const socket = await openSocket(`http://127.0.0.1:${port}`);
    await new Promise<void>((resolve) => {
      const idle = setTimeout(resolve, IDLE_MS);
      socket.on('error', () => {});
      socket.on('close', () => {
        clearTimeout(idle);
        resolve();
      });
      socket.resume();
      socket.write(bytes);
    });
    // The server may report the parser's error a tick after the client saw the connection close.
    await new Promise((resolve) => setImmediate(resolve));
    this.#judged = true;
    socket.destroy();
    // Set by the server's listeners meanwhile, which the compiler cannot see.
    const request = this.#request as IncomingMessage | undefined;
    if (this.#refused) return request === undefined ? 'refused-head' : 'refused-body';
    return request?.complete === true ? 'complete' : 'incomplete';
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

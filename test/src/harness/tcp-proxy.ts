// A TCP proxy between a server under test and a shared service: cut() breaks every connection through
// it and refuses new ones, as a service going down would look from the server; restore() lets
// connections through again. The machine's PostgreSQL and Redis are shared with other runs, so tests
// cut this proxy, never the service. tapReplies() lets the bench read what the service answers
// (PostgreSQL round trips per request); hold() stalls what clients send, as an upload over a link
// that stops moving (the CLI's Ctrl-C in the middle of one).
import { connect, createServer, type Server, type Socket } from 'node:net';

export class TcpProxy {
  #cut = false;
  #held = false;
  readonly #sockets = new Set<Socket>();
  readonly #clients = new Set<Socket>();
  /** Makes, per connection opened from now on, a listener for the service's bytes (tapReplies). */
  #tap: (() => (chunk: Buffer) => void) | undefined;

  private constructor(
    private readonly server: Server,
    /** The port to give the server under test instead of the service's. */
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => {
      if (!proxy || proxy.#cut) {
        client.destroy();
        return;
      }
      const upstream = connect(target);
      const sockets = proxy.#sockets;
      for (const [socket, other] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        sockets.add(socket);
        socket.on('error', () => other.destroy());
        socket.on('close', () => {
          sockets.delete(socket);
          other.destroy();
        });
      }
      const tap = proxy.#tap?.();
      if (tap) upstream.on('data', tap);
      const clients = proxy.#clients;
      clients.add(client);
      client.on('close', () => clients.delete(client));
      // While held, the client's bytes wait in its socket: TCP makes a sender wait as a slow link would.
      if (proxy.#held) client.pause();
      else client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
    proxy = new TcpProxy(server, address.port);
    return proxy;
  }

  /**
   * Hands each connection opened from now on its own listener, from `listenerOf`, for the bytes the
   * service sends it, in order (the bench counts PostgreSQL's answers in them).
   */
  tapReplies(listenerOf: () => (chunk: Buffer) => void): void {
    this.#tap = listenerOf;
  }

  /** Breaks every connection through the proxy; new ones are closed as soon as they open. */
  cut(): void {
    this.#cut = true;
    for (const socket of this.#sockets) socket.destroy();
  }

  restore(): void {
    this.#cut = false;
  }

  /** Stops passing on what clients send, for good: an upload through the proxy stalls in flight. */
  hold(): void {
    this.#held = true;
    for (const client of this.#clients) {
      client.unpipe();
      client.pause();
    }
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

// A TCP proxy in front of the server that loses answers: requests pass through whole, and
// for the first `cuts` connections the connection is destroyed as soon as the server's answer starts
// coming back, so the server did the work and the client never hears of it. With `hold`, the answer
// is dropped and the connection kept open instead: the client waits for an answer the server gave,
// for a test to kill the client then (the CLI's --resume). Real sockets, no mock.
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface CuttingProxy {
  /** `http://127.0.0.1:<port>`, to use as the SDK's base URL. */
  url: string;
  /** Answers cut (or held) so far. */
  cut(): number;
  close(): Promise<void>;
}

export async function answerCuttingProxy(
  target: URL,
  cuts: number,
  how: 'cut' | 'hold' = 'cut',
): Promise<CuttingProxy> {
  let made = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    const cutThis = made < cuts;
    client.pipe(upstream);
    let held = false;
    upstream.on('data', (chunk: Buffer) => {
      if (cutThis && how === 'hold') {
        if (!held) made += 1;
        held = true;
      } else if (cutThis) {
        if (!client.destroyed) made += 1;
        client.destroy();
        upstream.destroy();
      } else {
        client.write(chunk);
      }
    });
    // A held answer stays held: the server closing its side tells the client nothing either.
    upstream.on('end', () => (cutThis && how === 'hold' ? undefined : client.end()));
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    cut: () => made,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

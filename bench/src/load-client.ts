// The client of the load scenarios: node:http over kept-alive connections, each body
// encoded once. The bench runs on the machine it loads, so the client's own cost is taken from the
// server under test: fetch() with a FormData spent ~3 ms of CPU per small merge (undici, and the
// multipart encoding every time), ~0.7 ms this way, measured with process.cpuUsage on the 2-core
// bench machine; at four times a server's capacity of small merges, fetch took half a core.
import { Agent, request } from 'node:http';

/** A multipart body as bytes, with the Content-Type that names its boundary. */
export interface EncodedForm {
  contentType: string;
  bytes: Buffer;
}

export async function encodeForm(form: FormData): Promise<EncodedForm> {
  const encoded = new Response(form);
  return {
    contentType: encoded.headers.get('content-type') ?? '',
    bytes: Buffer.from(await encoded.arrayBuffer()),
  };
}

/**
 * How long a kept-alive connection may idle in the client: below the server's keepAliveTimeout (65 s,
 * http/http-server.ts), so the client never sends on a connection the server is closing, which
 * resets it (a burst after a lull reaches for the pool's oldest connections).
 */
const IDLE_MS = 4_000;

export class LoadClient {
  // No cap on sockets: an open loop sends each request when it is due, whoever is still waiting.
  readonly #agent = new Agent({ keepAlive: true, timeout: IDLE_MS });

  /** POSTs `form` and resolves with the status once the whole answer has arrived. */
  post(url: string, headers: Record<string, string>, form: EncodedForm): Promise<number> {
    return this.#send(
      url,
      'POST',
      {
        ...headers,
        'content-type': form.contentType,
        'content-length': String(form.bytes.length),
      },
      form.bytes,
    );
  }

  get(url: string): Promise<number> {
    return this.#send(url, 'GET', {});
  }

  close(): void {
    this.#agent.destroy();
  }

  #send(url: string, method: string, headers: Record<string, string>, body?: Buffer): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = request(url, { method, headers, agent: this.#agent }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
        res.once('error', reject);
      });
      req.once('error', reject);
      // Head and a small body in one write, as a client that knows its body's length sends them.
      req.end(body);
    });
  }
}

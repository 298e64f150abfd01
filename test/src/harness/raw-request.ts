// HTTP/1.1 requests written byte by byte on a plain TCP socket, for what no HTTP client will do: stop
// in the middle of the headers, reset the connection at a chosen byte, leave out
// `Host`, or send an `Expect` the server does not know. The answer, when one comes, is read
// raw and contract-checked like every other response.
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { assertExchange } from '../contract/checked-fetch.js';

/** A multipart body with one file part; `filler` bytes of content after a PDF header. */
export function multipartBody(options: { part: string; filename: string; filler: number }): {
  contentType: string;
  body: Buffer;
} {
  const boundary = `pdn-raw-${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${options.part}"; filename="${options.filename}"\r\n` +
        'Content-Type: application/pdf\r\n\r\n%PDF-1.7\n',
    ),
    Buffer.alloc(options.filler, 0x20),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { contentType: `multipart/form-data; boundary=${boundary}`, body };
}

/** The request line and header block, `\r\n\r\n` included. */
export function requestHead(method: string, path: string, headers: Record<string, string>): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`);
}

export function openSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => resolve(socket));
    socket.once('error', reject);
  });
}

function writeAll(socket: Socket, bytes: Buffer): Promise<void> {
  return new Promise((resolve, reject) =>
    socket.write(bytes, (error) => (error ? reject(error) : resolve())),
  );
}

/**
 * Writes `bytes` and then kills the connection without reading anything: `reset` sends a TCP RST (a
 * client process killed, a load balancer giving up), otherwise an orderly FIN.
 */
export async function sendAndCut(url: string, bytes: Buffer, how: 'reset' | 'close'): Promise<void> {
  const socket = await openSocket(url);
  socket.on('error', () => {});
  if (bytes.length > 0) await writeAll(socket, bytes);
  if (how === 'reset') socket.resetAndDestroy();
  else socket.destroy();
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
  json: { error?: { code: string; message: string } } | undefined;
}

/** Parses one raw HTTP/1.1 response (Content-Length framed, as every answer of this server is). */
function parseResponse(raw: Buffer): RawAnswer {
  return readResponse(raw).answer;
}

/**
 * Every response in `raw`, in order, interim ones (`100 Continue`) left out: what a connection carried
 * when the client's bytes held more than one request, or none the server could frame.
 */
export function parseResponses(raw: Buffer): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const { answer, length } = readResponse(rest);
    if (answer.status >= 200) answers.push(answer);
    rest = rest.subarray(length);
  }
  return answers;
}

function readResponse(raw: Buffer): { answer: RawAnswer; length: number } {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete response head in ${JSON.stringify(raw.toString('latin1'))}`);
  const [statusLine = '', ...headerLines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1]);
  const headers = new Headers();
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const length = Number(headers.get('content-length') ?? 0);
  const body = raw.subarray(end + 4, end + 4 + length);
  const isJson = (headers.get('content-type') ?? '').startsWith('application/json');
  return {
    answer: { status, headers, body, json: isJson ? JSON.parse(body.toString('utf8')) : undefined },
    length: end + 4 + length,
  };
}

/**
 * Sends `bytes`, reads until the server closes the connection, and returns the (first) answer,
 * contract-checked against `method path`.
 */
export async function rawExchange(
  url: string,
  method: string,
  path: string,
  bytes: Buffer,
): Promise<RawAnswer> {
  const socket = await openSocket(url);
  const chunks: Buffer[] = [];
  const closed = new Promise<void>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => {
      socket.end();
      resolve();
    });
    socket.on('error', reject);
  });
  socket.write(bytes);
  await closed;
  const answer = parseResponse(Buffer.concat(chunks));
  assertExchange({ method, url: new URL(path, url).toString(), ...answer });
  return answer;
}

// A synchronous merge whose body never keeps the minimum upload pace (openapi.yaml, "Upload limits"):
// its headers ask `Expect: 100-continue`; once the server says "continue" (the call is admitted and
// holds a place), a `trickle` sends its body a byte every 200 ms, and a `stall` sends nothing at all.
// `answer` is the server's final answer, contract-checked, as soon as it has arrived whole.
import { assertExchange } from '../contract/checked-fetch.js';
import { multipartBody, openSocket, parseResponses, type RawAnswer, requestHead } from './raw-request.js';

export interface SlowUpload {
  /** Resolves on `100 Continue`: the call is admitted and its body is being read. */
  admitted: Promise<void>;
  answer: Promise<RawAnswer>;
}

/** The final answer in `raw` once its head and whole body are there, else undefined. */
function finalAnswer(raw: Buffer): RawAnswer | undefined {
  try {
    const [answer] = parseResponses(raw);
    return answer !== undefined && answer.body.length === Number(answer.headers.get('content-length') ?? 0)
      ? answer
      : undefined;
  } catch {
    return undefined;
  }
}

export async function slowUpload(
  baseUrl: string,
  key: string,
  how: 'trickle' | 'stall',
): Promise<SlowUpload> {
  const path = '/api/v1/merge';
  const { contentType, body } = multipartBody({ part: 'files[]', filename: 'slow.pdf', filler: 64 * 1024 });
  const socket = await openSocket(baseUrl);
  socket.on('error', () => {});
  let seen = Buffer.alloc(0);
  let sent = 0;
  let trickling: NodeJS.Timeout | undefined;
  let continued: () => void = () => {};
  let refused: (error: Error) => void = () => {};
  const admitted = new Promise<void>((resolve, reject) => {
    continued = resolve;
    refused = reject;
  });
  const answer = new Promise<RawAnswer>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      if (seen.toString('latin1').startsWith('HTTP/1.1 100 ')) {
        continued();
        if (how === 'trickle' && trickling === undefined) {
          trickling = setInterval(() => {
            if (!socket.destroyed && sent < body.length) socket.write(body.subarray(sent, ++sent));
          }, 200);
        }
      }
      const final = finalAnswer(seen);
      if (final === undefined) return;
      clearInterval(trickling);
      socket.destroy();
      refused(new Error(`not admitted: ${final.status}`));
      assertExchange({ method: 'POST', url: new URL(path, baseUrl).toString(), ...final });
      resolve(final);
    });
    socket.on('close', () => {
      clearInterval(trickling);
      refused(new Error('connection closed before 100 Continue'));
      reject(
        new Error(`connection closed without a whole answer: ${JSON.stringify(seen.toString('latin1'))}`),
      );
    });
  });
  socket.write(
    requestHead('POST', path, {
      Host: new URL(baseUrl).host,
      Authorization: `Bearer ${key}`,
      'Content-Type': contentType,
      'Content-Length': String(body.length),
      Expect: '100-continue',
    }),
  );
  return { admitted, answer };
}

// Uploads a large multipart body piece by piece over node:http and stops as soon as the server
// answers, so a test can prove a limit is enforced *while the upload is still streaming*
// (413 before the body is read whole; 429 before the body is read at all). fetch() can't show this:
// it reports a connection reset instead of the early answer. The answer is contract-checked.
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { assertExchange } from '../contract/checked-fetch.js';

export interface StreamUploadOptions {
  key?: string;
  /** The file part's name and filename. */
  partName?: string;
  filename?: string;
  /** Size of the file part's content. */
  fileBytes: number;
  /** Send Content-Length (a server may refuse on the header alone) or stream chunked (it must count). */
  declareLength: boolean;
  /** Abort the upload after this many bytes instead of waiting for an answer (a client that goes away). */
  abortAfterBytes?: number;
  /**
   * Send `Expect: 100-continue` and hold the body until the server says "100 Continue" (RFC 9110
   * section 10.1.1); a server that refuses from the headers alone answers before any body byte is sent.
   */
  expectContinue?: boolean;
}

export interface StreamUploadResult {
  status: number;
  headers: Headers;
  json: { error?: { code: string; message: string } } | undefined;
  /** Body bytes written before the answer arrived. */
  bytesSent: number;
  /** Total body size that would have been sent. */
  bytesTotal: number;
}

const CHUNK = 64 * 1024;

export function streamUpload(url: string, options: StreamUploadOptions): Promise<StreamUploadResult> {
  const boundary = `pdn-e2e-${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${options.partName ?? 'file'}"; filename="${options.filename ?? 'big.pdf'}"\r\n` +
      'Content-Type: application/pdf\r\n\r\n%PDF-1.7\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const bytesTotal = head.length + options.fileBytes + tail.length;
  const headers: Record<string, string> = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.declareLength) headers['content-length'] = String(bytesTotal);
  if (options.expectContinue) headers.expect = '100-continue';

  return new Promise((resolve, reject) => {
    let bytesSent = 0;
    let answered = false;
    const req = request(url, { method: 'POST', headers });
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        const webHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) webHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const status = res.statusCode ?? 0;
        try {
          assertExchange({ method: 'POST', url, status, headers: webHeaders, body });
        } catch (error) {
          reject(error);
          return;
        }
        const isJson = (res.headers['content-type'] ?? '').startsWith('application/json');
        resolve({
          status,
          headers: webHeaders,
          json: isJson ? JSON.parse(body.toString('utf8')) : undefined,
          bytesSent,
          bytesTotal,
        });
        req.destroy();
      });
    });
    // Once the server has answered, a reset or broken pipe on our side of the upload is expected.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });

    const filler = Buffer.alloc(CHUNK, 0x20);
    const write = async () => {
      const send = (chunk: Buffer) =>
        new Promise<void>((done) => {
          bytesSent += chunk.length;
          if (req.write(chunk)) done();
          else req.once('drain', done);
        });
      if (options.expectContinue) {
        req.flushHeaders();
        const goAhead = await new Promise<boolean>((decide) => {
          req.once('continue', () => decide(true));
          req.once('response', () => decide(false));
        });
        if (!goAhead) return;
      }
      await send(head);
      let remaining = options.fileBytes;
      while (remaining > 0 && !answered && !req.destroyed) {
        if (options.abortAfterBytes !== undefined && bytesSent >= options.abortAfterBytes) {
          req.destroy();
          resolve({ status: 0, headers: new Headers(), json: undefined, bytesSent, bytesTotal });
          return;
        }
        const size = Math.min(CHUNK, remaining);
        await send(size === CHUNK ? filler : filler.subarray(0, size));
        remaining -= size;
      }
      if (!answered && !req.destroyed) {
        bytesSent += tail.length;
        req.end(tail);
      }
    };
    write().catch(reject);
  });
}

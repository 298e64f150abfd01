// A synchronous merge that takes a place for synchronous calls (openapi.yaml, "Admission order and
// back-pressure") and keeps it without loading the machine: its headers ask `Expect: 100-continue`,
// and the server says "continue" only once the call is admitted and its body is being read; half the
// body follows, and the rest never does while the socket stays open. Destroy the socket to free it.
// A body that stops is cut once a window of the minimum upload pace passes (openapi.yaml, "Upload
// limits"): the server must run with HOLDING_ENV for the place to stay taken as long as a test needs.
import type { Socket } from 'node:net';
import { multipartBody, openSocket, requestHead } from './raw-request.js';

/** A window of the upload pace longer than any test, so that a held place stays held. */
export const HOLDING_ENV = { PDN_UPLOAD_WINDOW_SECONDS: '600' } as const;

export async function holdAPlace(baseUrl: string, key: string): Promise<Socket> {
  const { contentType, body } = multipartBody({ part: 'files[]', filename: 'slow.pdf', filler: 64 * 1024 });
  const socket = await openSocket(baseUrl);
  socket.on('error', () => {});
  const continued = new Promise<void>((resolve, reject) => {
    let seen = '';
    socket.on('data', (chunk: Buffer) => {
      seen += chunk.toString('latin1');
      if (seen.startsWith('HTTP/1.1 100 ')) resolve();
      else if (seen.includes('\r\n\r\n')) reject(new Error(`not admitted: ${seen.split('\r\n')[0]}`));
    });
  });
  socket.write(
    requestHead('POST', '/api/v1/merge', {
      Host: new URL(baseUrl).host,
      Authorization: `Bearer ${key}`,
      'Content-Type': contentType,
      'Content-Length': String(body.length),
      Expect: '100-continue',
    }),
  );
  await continued;
  socket.write(body.subarray(0, body.length / 2));
  return socket;
}

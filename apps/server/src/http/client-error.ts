// Requests Node's HTTP parser refuses before the app sees them: headers too large, bytes that are not
// HTTP, a client too slow for headersTimeout/requestTimeout. Node's own answer to these is a bare
// status line (lib/_http_server.js, socketOnError); this one gives the spec's envelope and an
// X-Request-Id like every other response, on the same condition Node uses: the socket is
// writable and no response of its own has started on it. Then the socket is destroyed, as Node does.
// CONNECT, which Node would drop unanswered, gets the same treatment.
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorCode, ErrorResponse } from '@pdn/api-types';
import type { Logger } from '../logger.js';

interface Answer {
  status: number;
  code: ErrorCode;
  message: string;
}

/** The status Node itself would send for each parser error code, with our code and an actionable text. */
export function clientErrorAnswer(nodeCode: string | undefined): Answer {
  switch (nodeCode) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        code: 'invalid_input',
        message: `The request headers are larger than the ${maxHeaderSize} bytes this server accepts.`,
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return {
        status: 413,
        code: 'payload_too_large',
        message: 'A chunk extension of the request body is too large.',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        code: 'request_timeout',
        message: 'The request did not arrive in time; send its headers and body without long pauses.',
      };
    default:
      return { status: 400, code: 'invalid_input', message: 'The request is not valid HTTP/1.1.' };
  }
}

/** Raw bytes of a complete HTTP/1.1 response: there is no ServerResponse for a request never parsed. */
function rawResponse(answer: Answer, requestId: string): string {
  const body: ErrorResponse = {
    error: { code: answer.code, message: answer.message },
    meta: { request_id: requestId },
  };
  const json = JSON.stringify(body);
  return [
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(json)}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
    '',
    json,
  ].join('\r\n');
}

/** What this listener reads of the response in progress on a socket. */
interface InFlight {
  headersSent?: boolean;
  shouldKeepAlive?: boolean;
  req?: { complete?: boolean };
  once(event: 'close', listener: () => void): unknown;
}

/** Sockets whose parse error came after a whole request: they close once that request is answered. */
const closingAfterAnswer = new WeakSet<Duplex>();

/** A `clientError` listener for `server`; replaces Node's default answer. */
export function answerClientErrors(log: Logger) {
  return (error: NodeJS.ErrnoException, socket: Duplex): void => {
    // Node's private field for the response in progress on this socket (socketOnError reads it too).
    const inFlight = (socket as { _httpMessage?: InFlight })._httpMessage;
    if (closingAfterAnswer.has(socket)) return;
    if (inFlight?.req?.complete === true && inFlight.headersSent !== true && error.code !== 'ECONNRESET') {
      // The bytes refused came after a whole request (a Content-Length shorter than the body, or more
      // after `Connection: close`): that request is being answered, and a 400 in its place would
      // answer it wrongly (found by the fuzzer). Its answer goes out, then the connection
      // closes; nothing after the error is read.
      closingAfterAnswer.add(socket);
      log.info('bytes after a request refused by the HTTP parser', { reason: error.code ?? error.message });
      inFlight.shouldKeepAlive = false;
      socket.pause();
      inFlight.once('close', () => socket.destroy());
      return;
    }
    if (error.code === 'ECONNRESET') {
      // Nobody is left to answer, but a request cut short in its headers is still logged
      // (every request is, whatever the client does); one in progress logs its own line.
      if (inFlight === undefined) log.info('connection reset by the client');
    } else if (socket.writable && inFlight?.headersSent !== true) {
      const requestId = randomUUID();
      const answer = clientErrorAnswer(error.code);
      log.info('request refused by the HTTP parser', {
        request_id: requestId,
        status: answer.status,
        reason: error.code ?? error.message,
      });
      socket.write(rawResponse(answer, requestId));
    }
    socket.destroy();
  };
}

/**
 * A `connect` listener for `server`: CONNECT asks for a tunnel, which this server does not offer, and
 * without a listener Node drops the connection without a word (every response has
 * the envelope).
 */
export function refuseConnect(log: Logger) {
  return (req: IncomingMessage, socket: Duplex): void => {
    const requestId = randomUUID();
    const answer: Answer = {
      status: 400,
      code: 'invalid_input',
      message: 'This server is not a proxy: CONNECT is not supported.',
    };
    log.info('request refused', { request_id: requestId, method: req.method, status: answer.status });
    socket.on('error', () => socket.destroy());
    socket.end(rawResponse(answer, requestId), () => socket.destroy());
  };
}

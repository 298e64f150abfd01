import { ConnectionError, CorsRefusalError, TimeoutError } from '@pdn/sdk';
import { describe, expect, it } from 'vitest';
import { failedToConnect } from './unsent.js';

/** The SDK's ConnectionError around undici's `TypeError: fetch failed` around `cause`. */
const sdkError = (cause: unknown) =>
  new ConnectionError('Could not reach', { cause: new TypeError('fetch failed', { cause }) });
const errno = (code: string) => Object.assign(new Error(`connect ${code}`), { code });

describe('failedToConnect', () => {
  it.each<[string, unknown, boolean]>([
    ['connection refused', sdkError(errno('ECONNREFUSED')), true],
    ['no such host', sdkError(errno('ENOTFOUND')), true],
    [
      'every address refused (IPv6 and IPv4)',
      sdkError(new AggregateError([errno('ECONNREFUSED'), errno('ECONNREFUSED')])),
      true,
    ],
    ['a port fetch refuses outright', sdkError(new Error('bad port')), true],
    ['a connection reset after the request left', sdkError(errno('ECONNRESET')), false],
    [
      'the other side closed: the answer was lost',
      sdkError(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' })),
      false,
    ],
    ['a timeout', new TimeoutError(1000), false],
    ['a CORS refusal: the server answered', new CorsRefusalError('http://a', 'http://b'), false],
    ['not a connection error', new Error('ECONNREFUSED'), false],
  ])('%s: %s', (_name, error, want) => {
    expect(failedToConnect(error)).toBe(want);
  });
});

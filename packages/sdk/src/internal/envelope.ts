// Reads a success envelope (openapi.yaml `*Response`: `{ data, meta: { request_id } }`) and returns
// its `data` with the request id and rate-limit state attached as non-enumerable properties.
import { ApiError } from '../errors.js';
import type { WithMeta } from '../results.js';
import { parseRateLimit } from './rate-limit.js';
import { readBody } from './request.js';

export async function readEnvelope<T extends object>(response: Response): Promise<T & WithMeta> {
  const requestIdHeader = response.headers.get('x-request-id') ?? undefined;
  const invalid = (why: string): ApiError =>
    new ApiError('invalid_response', `The server's answer is not a pdn result: ${why}`, {
      status: response.status,
      headers: response.headers,
      requestId: requestIdHeader,
    });
  let body: unknown;
  try {
    body = await readBody(() => response.json());
  } catch (error) {
    if (error instanceof SyntaxError) throw invalid('not JSON');
    throw error;
  }
  const { data, meta } = (body ?? {}) as { data?: unknown; meta?: { request_id?: unknown } };
  if (typeof data !== 'object' || data === null) throw invalid('no `data` object');
  const requestId = typeof meta?.request_id === 'string' ? meta.request_id : (requestIdHeader ?? '');
  Object.defineProperties(data, {
    requestId: { value: requestId, enumerable: false },
    rateLimit: { value: parseRateLimit(response.headers), enumerable: false },
  });
  return data as T & WithMeta;
}

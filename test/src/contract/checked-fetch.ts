// Every response a test receives goes through here, so nothing escapes contract validation:
// - `call()` for raw HTTP in tests: fetches, validates, throws on a violation, returns parsed results;
// - `checkedFetch()` builds a `fetch` to inject into @pdn/sdk (STYLE.md principle 7): it validates a
//   clone of each response and records violations, which `assertConforms()` turns into a failure.
import { checkExchange, type Exchange } from './check-exchange.js';

export class ContractViolation extends Error {
  override name = 'ContractViolation';
  constructor(readonly problems: readonly string[]) {
    super(`response breaks the OpenAPI contract:\n  ${problems.join('\n  ')}`);
  }
}

export interface CallResult<T = unknown> {
  status: number;
  headers: Headers;
  /** Raw body bytes. */
  bytes: Buffer;
  /** The parsed body when it is JSON, else undefined. */
  json: T;
  /** `X-Request-Id`. */
  requestId: string;
}

export interface CallOptions {
  method?: string;
  headers?: Record<string, string>;
  /** A bearer key; sent as `Authorization: Bearer <key>`. */
  key?: string;
  body?: FormData | string | Uint8Array;
}

/** Fetches `baseUrl + path`, validates the exchange and returns it. Throws ContractViolation. */
export async function call<T = unknown>(
  baseUrl: string,
  path: string,
  options: CallOptions = {},
): Promise<CallResult<T>> {
  const method = options.method ?? (options.body === undefined ? 'GET' : 'POST');
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  const url = new URL(path, `${baseUrl}/`).toString();
  const sentAt = Date.now();
  const response = await fetch(url, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: options.body }),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  assertExchange({ method, url, status: response.status, headers: response.headers, body: bytes, sentAt });
  const isJson = (response.headers.get('content-type') ?? '').startsWith('application/json');
  return {
    status: response.status,
    headers: response.headers,
    bytes,
    json: (isJson ? JSON.parse(bytes.toString('utf8')) : undefined) as T,
    requestId: response.headers.get('x-request-id') ?? '',
  };
}

/** Validates an exchange obtained some other way (e.g. node:http for streaming uploads). */
export function assertExchange(exchange: Exchange): void {
  const problems = checkExchange(exchange);
  if (problems.length > 0) throw new ContractViolation(problems);
}

export interface CheckedFetch {
  fetch: typeof fetch;
  /** Every exchange seen so far, in order. */
  readonly exchanges: readonly Exchange[];
  /** Throws ContractViolation if any response seen so far broke the contract. */
  assertConforms(): void;
}

/** A `fetch` for the SDK that validates every response it hands back. */
export function checkedFetch(): CheckedFetch {
  const exchanges: Exchange[] = [];
  const problems: string[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    // Read method and URL without building a Request, which would lock a streamed request body.
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const url = input instanceof Request ? input.url : String(input);
    const sentAt = Date.now();
    const response = await fetch(input, init);
    const body = new Uint8Array(await response.clone().arrayBuffer());
    const exchange = {
      method: method.toUpperCase(),
      url,
      status: response.status,
      headers: response.headers,
      body,
      sentAt,
    };
    exchanges.push(exchange);
    problems.push(...checkExchange(exchange));
    return response;
  };
  return {
    fetch: wrapped,
    exchanges,
    assertConforms() {
      if (problems.length > 0) throw new ContractViolation(problems.splice(0));
    },
  };
}

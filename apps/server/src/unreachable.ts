// A shared service (PostgreSQL, Redis) that cannot be reached is the server's trouble, not the
// request's: the request is answered `503 service_unavailable` with the envelope, never
// admitted without a rate-limit check and never a crash, and the next request tries the service again.
// Each backend translates its client's connection failures here; every other error stays what it is,
// so a bug in a query is still a 500 and shows in the log.
import { ServiceUnavailableError } from './errors.js';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** The messages node-postgres and ioredis fail with when their socket is gone or never came. */
const CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|not queryable|Connection is closed|Stream isn't writeable|Command timed out|Reached the max retries|Query read timeout/i;

/** SQLSTATE classes of a server that is there but cannot take the query now (PostgreSQL appendix A). */
const UNAVAILABLE_SQLSTATE = /^(08|57P0[1-3]|53300)/;

/** Whether `error` says the service could not be reached or went away, rather than refused the query. */
export function isUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  // A reply from the PostgreSQL server carries its severity; only a few of those mean "not now".
  if (typeof severity === 'string') return typeof code === 'string' && UNAVAILABLE_SQLSTATE.test(code);
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  return CONNECTION_MESSAGES.test(error.message);
}

export function serviceUnavailable(service: string, cause: unknown): ServiceUnavailableError {
  return new ServiceUnavailableError(
    `The server cannot reach its ${service} just now; nothing was done. Send the request again in a few seconds.`,
    { cause },
  );
}

/** Runs `work`, turning the service's connection failures into `503 service_unavailable`. */
export async function orUnavailable<T>(service: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw isUnreachable(error) ? serviceUnavailable(service, error) : error;
  }
}

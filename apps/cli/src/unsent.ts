// Work that never reached the server. A connection that was never made (refused, no such host, no
// route) carried no request: nothing goes on on the server and an Idempotency-Key kept for it can be
// dropped, and in the report the input was never tried (`skipped`, `server_unreachable`), not failed.
// The SDK hands over the last attempt's failure only; an earlier attempt may have sent the request and
// lost its answer (the server went away between the two), so a run in which any attempt failed after
// connecting claims nothing was sent for none of its inputs (`CommandContext.lostAnswers`).
import { ConnectionError, CorsRefusalError, TimeoutError } from '@pdn/sdk';

/** Failures before a connection existed: the request never left (Node's and undici's codes). */
const BEFORE_CONNECTING = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

interface Cause {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/** Whether `error` says, somewhere in its causes, that no connection was ever made. */
function neverConnected(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const { code, message, cause, errors } = error as Cause;
  // fetch refuses some ports outright ("bad port"), before any connection.
  if ((typeof code === 'string' && BEFORE_CONNECTING.has(code)) || message === 'bad port') return true;
  // Several addresses tried one after the other (Node's autoSelectFamily): all of them refused.
  if (Array.isArray(errors) && errors.length > 0 && errors.every((each) => neverConnected(each, depth + 1)))
    return true;
  return neverConnected(cause, depth + 1);
}

/** The SDK's final failure of a call whose last attempt never connected to the server. */
export function failedToConnect(error: unknown): boolean {
  if (!(error instanceof ConnectionError) || error instanceof TimeoutError) return false;
  if (error instanceof CorsRefusalError) return false;
  return neverConnected(error.cause);
}

const unsent = new WeakSet<object>();

/** Marks `error` as the failure of an input's own request (a submission, not the wait for its job). */
export function markIfUnsent(error: unknown): void {
  if (failedToConnect(error)) unsent.add(error as object);
}

/** Whether `error` ended an input's work before any of it reached the server. */
export function isUnsent(error: unknown): boolean {
  return typeof error === 'object' && error !== null && unsent.has(error);
}

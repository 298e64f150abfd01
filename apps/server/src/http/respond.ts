// The success envelope (v1 specification, Response envelope): `{ data, meta: { request_id } }`.
// Errors never come through here; the error-envelope middleware owns those.
import type { AppContext } from './state.js';

export function sendData<T>(ctx: AppContext, data: T): void {
  ctx.status = 200;
  ctx.body = { data, meta: { request_id: ctx.state.requestId } };
}

// The ApiPromise of a call that is one request, for the client and `pdn.jobs` alike: its parsed result,
// or its Response with the body unread (`asResponse()`).
import { ApiPromise } from '../api-promise.js';
import { type CallOptions, type RequestSpec, send, type Transport, unreadSpec } from './request.js';

/** `prepare` checks the parameters and builds the request; a refusal there rejects the call. */
export function callOf<T>(
  transport: Transport,
  prepare: () => { spec: RequestSpec<T>; options: CallOptions },
): ApiPromise<T> {
  return new ApiPromise({
    parsed: async () => {
      const { spec, options } = prepare();
      return send(transport, spec, options);
    },
    unread: async () => {
      const { spec, options } = prepare();
      return (await send(transport, unreadSpec(spec), options)).data;
    },
  });
}

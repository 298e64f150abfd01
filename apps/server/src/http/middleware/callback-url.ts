// The `callback_url` field of the four operations (openapi.yaml `CallbackUrl`, "Webhooks"; issue #14):
// declared on every operation's parts here, read once the upload is parsed, checked (format, and
// private addresses unless the operator allows them) and handed to the route in ctx.state. Only an
// asynchronous submission may name one: a synchronous call answers with its result.
import type { Middleware } from 'koa';
import { InvalidInputError } from '../../errors.js';
import { checkCallbackUrl } from '../../webhooks/callback-url.js';
import type { PartsSpec } from '../multipart.js';
import { asksForJob } from '../prefer.js';
import type { AppState } from '../state.js';
import { optionalField } from '../upload.js';

export const CALLBACK_FIELD = 'callback_url';

export function withCallbackField(parts: PartsSpec): PartsSpec {
  return { ...parts, fields: [...parts.fields, CALLBACK_FIELD] };
}

export function callbackUrl(allowPrivate: boolean): Middleware<AppState> {
  return async (ctx, next) => {
    const upload = ctx.state.upload;
    if (!upload) throw new Error('callbackUrl needs the uploads middleware in front of it');
    const raw = optionalField(upload, CALLBACK_FIELD);
    if (raw !== undefined) {
      if (!asksForJob(ctx))
        throw new InvalidInputError(
          '`callback_url` goes with `Prefer: respond-async` only: a synchronous call answers with its result.',
        );
      ctx.state.callbackUrl = await checkCallbackUrl(raw, allowPrivate);
    }
    await next();
  };
}

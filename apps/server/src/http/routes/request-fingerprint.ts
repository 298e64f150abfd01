// What makes two requests with one Idempotency-Key the same request (openapi.yaml, "Idempotency"): the
// operation, whether it asked for a job, and its parsed fields and files (idempotency/fingerprint.ts).
import { fingerprint } from '../../idempotency/fingerprint.js';
import { asksForJob } from '../prefer.js';
import type { AppContext } from '../state.js';
import type { Upload } from '../upload.js';

export function fingerprintOf(ctx: AppContext, upload: Upload): string {
  return fingerprint({
    operation: ctx.path,
    async: asksForJob(ctx),
    fields: upload.fields,
    files: upload.files,
  });
}

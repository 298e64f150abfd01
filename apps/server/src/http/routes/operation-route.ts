// One of the five operations as the HTTP layer sees it (STYLE.md 17): the parts its multipart body may
// carry, and how a parsed upload becomes the job's inputs and checked params. Everything else about a
// call (admission, the upload, the job, the answer) is the same for all five: submission.ts.
import type { Principal } from '../../accounts/index.js';
import type { JobOperation } from '../../jobs/index.js';
import type { OperationInput } from '../../operations/index.js';
import type { PartsSpec } from '../multipart.js';
import type { Upload } from '../upload.js';

export interface OperationRequest {
  /** The uploads in the operation's order. */
  files: readonly OperationInput[];
  /** Checked: an operation gets them back as they are. */
  params: unknown;
}

export interface OperationRoute {
  operation: JobOperation;
  parts: PartsSpec;
  /** The job's inputs and params, or an InvalidInputError naming the part to fix. */
  request(upload: Upload, principal: Principal): OperationRequest;
}

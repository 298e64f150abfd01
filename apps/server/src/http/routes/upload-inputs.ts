// Route plumbing shared by the multipart operations: the parsed upload, who sent it, and what their
// plan lets one merge or split write.

import type { Principal } from '../../accounts/index.js';
import { planLimits, planTitle } from '../../accounts/index.js';
import type { UploadLimits } from '../../config.js';
import type { PageBudget } from '../../engines/types.js';
import type { AppContext } from '../state.js';
import type { Upload } from '../upload.js';

export function uploadOf(ctx: AppContext): Upload {
  const upload = ctx.state.upload;
  if (!upload) throw new Error(`${ctx.path} needs the uploads middleware in front of it`);
  return upload;
}

export function principalOf(ctx: AppContext): Principal {
  const principal = ctx.state.principal;
  if (!principal) throw new Error(`${ctx.path} needs the auth middleware in front of it`);
  return principal;
}

/** What the caller's plan lets one merge or split write (issue #11.8; openapi.yaml, `merge` and `split`). */
export function pageBudgetOf(ctx: AppContext, uploadLimits: UploadLimits): PageBudget {
  const { plan } = principalOf(ctx);
  return { maxPages: planLimits(plan, uploadLimits).pagesPerRequest, holder: `the ${planTitle(plan)} plan` };
}

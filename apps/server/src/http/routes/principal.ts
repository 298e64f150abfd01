// Route plumbing shared by the API routes: who sent the request, and what their plan lets one merge or
// split write.
import type { Principal } from '../../accounts/index.js';
import { planLimits, planTitle } from '../../accounts/index.js';
import type { UploadLimits } from '../../config.js';
import type { HtmlBudget } from '../../engines/html-pdf/index.js';
import type { ImageBudget } from '../../engines/images-pdf/index.js';
import type { OfficeBudget } from '../../engines/office-pdf/index.js';
import type { PageBudget } from '../../engines/types.js';
import type { AppContext } from '../state.js';

export function principalOf(ctx: AppContext): Principal {
  const principal = ctx.state.principal;
  if (!principal) throw new Error(`${ctx.path} needs the auth middleware in front of it`);
  return principal;
}

/**
 * What the caller's plan lets one request ask of the engines (openapi.yaml, "Pages per request"):
 * pages a merge or split writes, a compression reads, OCR of documents reads.
 */
export function pageBudgetOf(
  principal: Principal,
  uploadLimits: UploadLimits,
  kind: 'pagesPerRequest' | 'compressPages' | 'ocrPages' | 'renderPages',
): PageBudget {
  const { plan } = principal;
  return { maxPages: planLimits(plan, uploadLimits)[kind], holder: `the ${planTitle(plan)} plan` };
}

/** What the caller's plan lets one images-to-PDF request make pages of (openapi.yaml, "Pages per request"). */
export function imageBudgetOf(principal: Principal, uploadLimits: UploadLimits): ImageBudget {
  const { plan } = principal;
  const limits = planLimits(plan, uploadLimits);
  return {
    maxImages: limits.imagesPerRequest,
    maxPixels: limits.imagePixels,
    holder: `the ${planTitle(plan)} plan`,
  };
}

/** What the caller's plan lets one HTML-to-PDF request take (openapi.yaml, "Pages per request"). */
export function htmlBudgetOf(principal: Principal, uploadLimits: UploadLimits): HtmlBudget {
  const { plan } = principal;
  const limits = planLimits(plan, uploadLimits);
  return { seconds: limits.htmlSeconds, maxPages: limits.htmlPages, holder: `the ${planTitle(plan)} plan` };
}

/** What the caller's plan lets one Office-to-PDF conversion take (openapi.yaml, "Pages per request"). */
export function officeBudgetOf(principal: Principal, uploadLimits: UploadLimits): OfficeBudget {
  const { plan } = principal;
  const limits = planLimits(plan, uploadLimits);
  return {
    seconds: limits.officeSeconds,
    memoryBytes: limits.officeMemoryBytes,
    maxPages: limits.officePages,
    holder: `the ${planTitle(plan)} plan`,
  };
}

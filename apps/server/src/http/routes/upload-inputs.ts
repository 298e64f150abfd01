// Route plumbing shared by the multipart operations: the parsed upload, and engine inputs labelled the
// way error messages should name them (engines/types.ts InputFile).
import { planLimits, planTitle } from '../../accounts/index.js';
import type { UploadLimits } from '../../config.js';
import type { InputFile, JobContext, PageBudget } from '../../engines/types.js';
import type { AppContext } from '../state.js';
import type { Upload, UploadedFile } from '../upload.js';

export function uploadOf(ctx: AppContext): Upload {
  const upload = ctx.state.upload;
  if (!upload) throw new Error(`${ctx.path} needs the uploads middleware in front of it`);
  return upload;
}

export function jobOf(upload: Upload): JobContext {
  return { workDir: upload.workDir, signal: upload.signal, log: upload.log };
}

/** `"report.pdf"`, or `"the uploaded file"` when the client sent no name. */
export function inputFile(file: UploadedFile): InputFile {
  return { path: file.path, label: file.name === '' ? 'the uploaded file' : `"${file.name}"` };
}

/** What the caller's plan lets one merge or split write (issue #11.8; openapi.yaml, `merge` and `split`). */
export function pageBudgetOf(ctx: AppContext, uploadLimits: UploadLimits): PageBudget {
  const principal = ctx.state.principal;
  if (!principal) throw new Error(`${ctx.path} needs the auth middleware in front of it`);
  return {
    maxPages: planLimits(principal.plan, uploadLimits).pagesPerRequest,
    holder: `the ${planTitle(principal.plan)} plan`,
  };
}

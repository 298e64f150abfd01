// Route plumbing shared by the multipart operations: the parsed upload, and engine inputs labelled the
// way error messages should name them (engines/types.ts InputFile).
import type { InputFile, JobContext } from '../../engines/types.js';
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

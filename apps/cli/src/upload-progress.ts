// What the spinner says while a file goes up ("what is uploading, processing or
// downloading, bytes for large uploads"): the bytes sent so far, then the processing step once the
// whole body is out (the server works on it until it answers).
import type { UploadProgress } from '@pdn/sdk';
import { formatBytes } from './format.js';

/** The SDK's `onUploadProgress` for an upload the server then spends `processing` on. */
export function uploadProgress(
  progress: (phase: string) => void,
  processing: string,
): (sent: UploadProgress) => void {
  return ({ loaded, total }) => {
    if (total !== undefined && loaded >= total) progress(processing);
    else
      progress(`uploading ${formatBytes(loaded)}${total === undefined ? '' : `/${formatBytes(total)}`} of`);
  };
}

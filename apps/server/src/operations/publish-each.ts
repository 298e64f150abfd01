// Publishing many outputs of one job, a few at a time: each publish is a handful of file operations (or
// an upload to the bucket), and one after another the four pages of a PDF drawn as images waited some
// 7 ms for theirs on a loaded machine, where four at a time took under 4. At most PUBLISHING_AT_ONCE
// run together, so a thousand pages do not open a thousand uploads to the bucket at once.
import type { Download } from '@pdn/api-types';
import type { OutputPublisher } from './types.js';

const PUBLISHING_AT_ONCE = 8;

export interface OutputFile {
  path: string;
  filename: string;
}

/**
 * Each file published, the downloads in the files' order. Publishes start in that order, so the
 * publisher numbers the outputs as one after another would (the output ids a run again overwrites).
 * On a failure no more start; those under way end, then the first failure is thrown.
 */
export async function publishEach(
  outputs: OutputPublisher,
  files: readonly OutputFile[],
  atOnce = PUBLISHING_AT_ONCE,
): Promise<Download[]> {
  const downloads: Download[] = new Array(files.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < files.length) {
      const index = next++;
      const file = files[index] as OutputFile;
      try {
        downloads[index] = await outputs.publish(file.path, file.filename);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, files.length) }, worker));
  if (failure !== undefined) throw failure.error;
  return downloads;
}

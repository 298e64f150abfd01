// Gets one output where the user wants it: downloaded to a file (atomically), streamed to stdout
// for `-o -` (path `-`), or, with --no-download (no path), left on the server and reported as its
// signed URL.
import type { Download } from '@pdn/sdk';
import type { Client, CommandContext } from './context.js';
import { formatBytes } from './format.js';
import { STDIO } from './output-naming.js';
import { writeOutput, writeToStream } from './output-writer.js';
import type { OutputReport } from './report.js';

export async function deliver(
  ctx: CommandContext,
  client: Client,
  download: Download,
  path: string | undefined,
  force: boolean,
  progress: (phase: string) => void,
): Promise<OutputReport> {
  if (path === undefined) {
    return { kind: 'url', url: client.absoluteUrl(download.url), expires_at: download.expires_at };
  }
  const signal = ctx.io.signal;
  progress('downloading');
  const body = await client.pdn.downloadStream(download, { signal });
  const onProgress = (bytes: number) => progress(`downloading ${formatBytes(bytes)} of`);
  if (path === STDIO) {
    return { kind: 'stdout', bytes: await writeToStream(body, ctx.io.stdout, { signal, onProgress }) };
  }
  return { kind: 'file', path, bytes: await writeOutput(path, body, { force, signal, onProgress }) };
}

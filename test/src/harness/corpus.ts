// The real-world corpus (packages/fixtures/corpus): every PDF there, and a verdict on each
// from tools other than the server's own path, so a test knows whether a `400` is acceptable. Nothing
// here knows any file by name: drop another PDF in the folder and it is tested the same way.
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readPdf, samplePages, Unreadable } from './pdf-content.js';

const run = promisify(execFile);

export const CORPUS_DIR = fileURLToPath(new URL('../../../packages/fixtures/corpus/', import.meta.url));

export interface CorpusFile {
  name: string;
  path: string;
  bytes: Buffer;
}

export async function corpusFiles(dir = CORPUS_DIR): Promise<CorpusFile[]> {
  const names = (await readdir(dir)).filter((name) => name.toLowerCase().endsWith('.pdf')).sort();
  return Promise.all(
    names.map(async (name) => ({ name, path: `${dir}${name}`, bytes: await readFile(`${dir}${name}`) })),
  );
}

/**
 * Whether a file is sound enough that refusing it would be the server's fault: qpdf's full check finds
 * no error (warnings, such as a stale linearization table, are fine) and poppler reads and renders it.
 * Anything else (damaged, encrypted, a looping page tree) may be answered with a clean `400`.
 */
export async function isSound(file: CorpusFile): Promise<boolean> {
  try {
    await run('qpdf', ['--check', file.path], { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    if ((error as { code?: unknown }).code !== 3) return false;
  }
  try {
    await readPdf(file.bytes, (count) => samplePages(count, 1));
    return true;
  } catch (error) {
    if (error instanceof Unreadable) return false;
    throw error;
  }
}

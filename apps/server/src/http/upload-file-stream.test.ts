// The stream formidable writes each uploaded file into: every byte lands, in order, before it reports
// finished; a write the disk refuses fails it. Real files, and /dev/full for a disk with no room.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadFileStream } from './upload-file-stream.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-upload-file-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Writes `chunks` as formidable does: the next only once the last one's callback came. */
async function writeInTurn(stream: NodeJS.WritableStream, chunks: Buffer[]): Promise<void> {
  for (const chunk of chunks) {
    await new Promise<void>((resolve, reject) => {
      stream.write(chunk, (error) => (error ? reject(error) : resolve()));
    });
  }
  stream.end();
  await finished(stream);
}

describe('uploadFileStream', () => {
  it('writes every chunk in order, the file whole once the stream has finished', async () => {
    // 5 MiB in 64 KiB chunks: more than may wait for the disk at once, so the parse is held back too.
    const chunks = Array.from({ length: 80 }, () => randomBytes(64 * 1024));
    const path = join(dir, 'upload-1');
    await writeInTurn(uploadFileStream(path), chunks);
    expect((await readFile(path)).equals(Buffer.concat(chunks))).toBe(true);
  });

  it('writes an empty file', async () => {
    const path = join(dir, 'upload-2');
    await writeInTurn(uploadFileStream(path), []);
    expect(await readFile(path)).toHaveLength(0);
  });

  // One chunk: taken at once, so the failure must come at the end; two: the second write sees it.
  it.each([1, 2])('fails when the disk refuses a write (%i chunks)', async (count) => {
    const chunks = Array.from({ length: count }, () => randomBytes(1024));
    await expect(writeInTurn(uploadFileStream('/dev/full'), chunks)).rejects.toMatchObject({
      code: 'ENOSPC',
    });
  });

  it('fails when the file cannot be made', async () => {
    const path = join(dir, 'missing-folder', 'upload-3');
    await expect(writeInTurn(uploadFileStream(path), [randomBytes(10)])).rejects.toMatchObject({
      code: 'ENOENT',
    });
    expect(existsSync(path)).toBe(false);
  });
});

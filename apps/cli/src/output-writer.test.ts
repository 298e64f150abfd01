import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutputExistsError } from './errors.js';
import { assertCanWrite, writeOutput } from './output-writer.js';

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
}

function failingStream(): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('half'));
      controller.error(new Error('connection reset'));
    },
  });
}

describe('writeOutput', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdn-cli-out-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a stream, creates the folder and counts the bytes', async () => {
    const path = join(dir, 'new', 'a.pdf');
    const seen: number[] = [];
    const bytes = await writeOutput(path, streamOf('%PDF-', '1.7'), {
      force: false,
      onProgress: (n) => seen.push(n),
    });
    expect(bytes).toBe(8);
    expect(seen.at(-1)).toBe(8);
    expect(await readFile(path, 'utf8')).toBe('%PDF-1.7');
  });

  it('never replaces an existing file without force, and leaves no temp file', async () => {
    const path = join(dir, 'a.txt');
    await writeFile(path, 'keep me');
    await expect(writeOutput(path, 'new text', { force: false })).rejects.toBeInstanceOf(OutputExistsError);
    expect(await readFile(path, 'utf8')).toBe('keep me');
    expect(await readdir(dir)).toEqual(['a.txt']);
  });

  it('replaces an existing file with force', async () => {
    const path = join(dir, 'a.txt');
    await writeFile(path, 'old');
    await writeOutput(path, 'new', { force: true });
    expect(await readFile(path, 'utf8')).toBe('new');
  });

  it('a failed download leaves neither a partial output nor a temp file', async () => {
    const path = join(dir, 'a.pdf');
    await expect(writeOutput(path, failingStream(), { force: false })).rejects.toThrow('connection reset');
    expect(await readdir(dir)).toEqual([]);
  });

  it('a failed download with force keeps the old file', async () => {
    const path = join(dir, 'a.pdf');
    await writeFile(path, 'old');
    await expect(writeOutput(path, failingStream(), { force: true })).rejects.toThrow();
    expect(await readFile(path, 'utf8')).toBe('old');
    expect(await readdir(dir)).toEqual(['a.pdf']);
  });
});

describe('assertCanWrite', () => {
  it('refuses an existing file unless forced; stdout and no path need no check', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pdn-cli-out-'));
    try {
      const path = join(dir, 'x');
      await writeFile(path, '');
      await expect(assertCanWrite(path, false)).rejects.toBeInstanceOf(OutputExistsError);
      await expect(assertCanWrite(path, true)).resolves.toBeUndefined();
      await expect(assertCanWrite(join(dir, 'y'), false)).resolves.toBeUndefined();
      await expect(assertCanWrite('-', false)).resolves.toBeUndefined();
      await expect(assertCanWrite(undefined, false)).resolves.toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

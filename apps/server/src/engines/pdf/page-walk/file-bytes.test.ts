import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { withFileBytes } from './file-bytes.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-file-bytes-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

const text = (bytes: Buffer) => bytes.toString('latin1');

describe('withFileBytes', () => {
  it('hands over exactly the bytes of each file, a shorter one after a longer alike', async () => {
    const long = await file('long', 'x'.repeat(5000));
    const short = await file('short', 'abc');
    const empty = await file('empty', '');
    expect(await withFileBytes(long, 10_000, text)).toBe('x'.repeat(5000));
    expect(await withFileBytes(short, 10_000, text)).toBe('abc');
    expect(await withFileBytes(empty, 10_000, text)).toBe('');
  });

  it('gives each of several reads at once its own file', async () => {
    const paths = await Promise.all(
      Array.from({ length: 5 }, (_, i) => file(`at-once-${i}`, String(i).repeat(100 * (i + 1)))),
    );
    const read = await Promise.all(paths.map((path) => withFileBytes(path, 10_000, text)));
    expect(read).toEqual(paths.map((_, i) => String(i).repeat(100 * (i + 1))));
  });

  it('reads nothing from a file over the limit', async () => {
    const path = await file('over', 'x'.repeat(101));
    const use = vi.fn(text);
    expect(await withFileBytes(path, 100, use)).toBeUndefined();
    expect(use).not.toHaveBeenCalled();
  });

  it('passes on what the use throws', async () => {
    const path = await file('throws', 'abc');
    await expect(
      withFileBytes(path, 100, () => {
        throw new Error('used');
      }),
    ).rejects.toThrow('used');
  });
});

describe('withFileBytes, buffers kept', () => {
  it('reads two inputs at once then a bigger output, round after round, with no new buffer', async () => {
    // A fresh copy of the module, so its kept buffers are only those this test makes.
    vi.resetModules();
    const { withFileBytes: fresh } = await import('./file-bytes.js');
    const inputs = await Promise.all([file('input-1', 'a'.repeat(1000)), file('input-2', 'b'.repeat(1000))]);
    const output = await file('output', 'c'.repeat(3 * 1024 * 1024));
    const merge = async () => {
      await Promise.all(inputs.map((path) => fresh(path, 8 * 1024 * 1024, text)));
      expect(await fresh(output, 8 * 1024 * 1024, (bytes) => bytes.length)).toBe(3 * 1024 * 1024);
    };
    await merge();
    const made = vi.spyOn(Buffer, 'allocUnsafeSlow');
    try {
      for (let round = 0; round < 3; round++) await merge();
      expect(made).not.toHaveBeenCalled();
    } finally {
      made.mockRestore();
    }
  });
});

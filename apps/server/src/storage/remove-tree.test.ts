// removeTree does what `rm -rf` does to a job's folders: everything goes, nested folders and empty
// ones included; a missing path is no error; a link is removed, never followed; a file is removed as
// a folder would be; a folder still being written into (ENOTEMPTY when its rmdir runs) is tried again, three times.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { removeTree } from './remove-tree.js';

/** Folders named `busy-<n>` refuse their rmdir n times (ENOTEMPTY), as when a tool still writes there. */
const refusals = new Map<string, number>();
vi.mock('node:fs/promises', async (original) => {
  const fs = await original<typeof import('node:fs/promises')>();
  return {
    ...fs,
    rmdir: async (path: string) => {
      const times = Number(/^busy-(\d+)$/.exec(basename(path))?.[1] ?? 0);
      const refused = refusals.get(path) ?? 0;
      if (refused < times) {
        refusals.set(path, refused + 1);
        throw Object.assign(new Error(`ENOTEMPTY: directory not empty, rmdir '${path}'`), {
          code: 'ENOTEMPTY',
        });
      }
      return fs.rmdir(path);
    },
  };
});

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'remove-tree-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Lays out `files` (paths relative to `dir`; a trailing slash makes an empty folder). */
async function layOut(dir: string, files: readonly string[]): Promise<void> {
  await mkdir(dir);
  for (const file of files) {
    const path = join(dir, file);
    if (file.endsWith('/')) await mkdir(path, { recursive: true });
    else {
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, 'x');
    }
  }
}

describe('removeTree', () => {
  const cases: [string, { given: readonly string[] }][] = [
    ['an empty folder', { given: [] }],
    [
      'a job attempt: inputs and work files',
      { given: ['inputs/0', 'work/a.pdf', 'work/b.pdf', 'work/c.txt'] },
    ],
    ['nested and empty folders', { given: ['a/b/c/d.pdf', 'a/e/', 'f/', 'g'] }],
  ];
  it.each(cases)('removes %s', async (_name, { given }) => {
    const dir = join(root, 'tree');
    await layOut(dir, given);
    await removeTree(dir);
    expect(existsSync(dir)).toBe(false);
  });

  it('is done when the path is missing', async () => {
    await expect(removeTree(join(root, 'missing'))).resolves.toBeUndefined();
  });

  it('removes a file given for a folder', async () => {
    const file = join(root, 'file');
    await writeFile(file, 'x');
    await removeTree(file);
    expect(existsSync(file)).toBe(false);
  });

  it('removes a link to a folder without touching what it points to', async () => {
    const outside = join(root, 'outside');
    await layOut(outside, ['kept.pdf']);
    const dir = join(root, 'tree');
    await layOut(dir, ['work/a.pdf']);
    await symlink(outside, join(dir, 'work', 'link'));
    await removeTree(dir);
    expect(existsSync(dir)).toBe(false);
    expect(await readdir(outside)).toEqual(['kept.pdf']);
  });

  it('removes a link to a folder given as the path, as rm -rf does, leaving what it points to', async () => {
    // readdir follows a link: the folder it points to was emptied, then rmdir threw ENOTDIR.
    const outside = join(root, 'outside');
    await layOut(outside, ['kept.pdf']);
    const link = join(root, 'link');
    await symlink(outside, link);
    await removeTree(link);
    expect(existsSync(link)).toBe(false);
    expect(await readdir(outside)).toEqual(['kept.pdf']);
  });

  it('tries again while a folder is still in use, as fs.rm with maxRetries: 3 did', async () => {
    const dir = join(root, 'tree');
    await layOut(dir, ['busy-3/a.pdf']);
    await removeTree(dir);
    expect(existsSync(dir)).toBe(false);
  });

  it('gives up after three tries again, with the error', async () => {
    const dir = join(root, 'tree');
    await layOut(dir, ['busy-4/a.pdf']);
    await expect(removeTree(dir)).rejects.toMatchObject({ code: 'ENOTEMPTY' });
    expect(await readdir(join(dir, 'busy-4'))).toEqual([]);
  });
});

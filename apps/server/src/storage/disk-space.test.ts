import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InsufficientStorageError, InternalError, InvalidInputError } from '../errors.js';
import { blameFullDisk, saysOutOfSpace } from './disk-space.js';

const errno = (code: string) => Object.assign(new Error(code), { code });

describe('saysOutOfSpace', () => {
  const table: [string, { given: unknown; want: boolean }][] = [
    ['ENOSPC from the file system', { given: errno('ENOSPC'), want: true }],
    ['EDQUOT from a quota', { given: errno('EDQUOT'), want: true }],
    ['SQLITE_FULL from better-sqlite3', { given: errno('SQLITE_FULL'), want: true }],
    [
      'a tool failure caused by ENOSPC',
      { given: new InternalError('qpdf failed', { cause: errno('ENOSPC') }), want: true },
    ],
    ['the storage error itself', { given: new InsufficientStorageError('full'), want: true }],
    ['another errno', { given: errno('EACCES'), want: false }],
    ['a client error', { given: new InvalidInputError('bad'), want: false }],
    ['not an error', { given: 'ENOSPC', want: false }],
  ];
  it.each(table)('%s: %s', (_name, { given, want }) => {
    expect(saysOutOfSpace(given)).toBe(want);
  });

  it('stops on a cause chain that loops', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(saysOutOfSpace(a)).toBe(false);
  });
});

describe('blameFullDisk on a disk with room', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdn-disk-space-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('keeps a failure that says nothing of space', async () => {
    const error = new InvalidInputError('bad');
    expect(await blameFullDisk(error, dir)).toBe(error);
  });

  it('turns one that does into the storage error, keeping it as the cause', async () => {
    const error = errno('ENOSPC');
    const blamed = await blameFullDisk(error, dir);
    expect(blamed).toBeInstanceOf(InsufficientStorageError);
    expect((blamed as Error).cause).toBe(error);
  });
});

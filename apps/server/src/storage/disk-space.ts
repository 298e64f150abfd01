// Telling a full disk from a bad request: with the data folder full, merge said
// "file 1 is empty (0 bytes)", compress "damaged or truncated", split "has no pages", because the
// upload or a tool's output had silently been cut short. Two kinds of evidence make a failure the
// disk's: an error that says so (ENOSPC, EDQUOT, SQLite's SQLITE_FULL, anywhere in its cause chain),
// or the disk itself, read with statfs, when the failure gave no reason: qpdf 11.3 exits 0 after
// writing an empty file to a full disk, and Ghostscript only reports an "ioerror".
import { statfs } from 'node:fs/promises';
import { InsufficientStorageError } from '../errors.js';

/** Below this much space free to the server's user the data folder counts as full: no PDF fits. */
export const FULL_BELOW_BYTES = 1024 * 1024;

/** What the file system, the kernel's quota and SQLite call running out of room. */
const OUT_OF_SPACE_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);

/** Causes followed at most: a chain is a few links long; a cycle must not hang an error answer. */
const MAX_CAUSES = 8;

/** Whether `error`, or any error it was caused by, says the disk or the quota is full. */
export function saysOutOfSpace(error: unknown): boolean {
  let current = error;
  for (let depth = 0; depth < MAX_CAUSES && current instanceof Error; depth += 1) {
    if (current instanceof InsufficientStorageError) return true;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && OUT_OF_SPACE_CODES.has(code)) return true;
    current = current.cause;
  }
  return false;
}

/** Bytes the server's user may still write on the file system holding `dir`. */
export async function freeBytes(dir: string): Promise<number> {
  const stats = await statfs(dir);
  return stats.bavail * stats.bsize;
}

export async function isFull(dir: string): Promise<boolean> {
  return (await freeBytes(dir)) < FULL_BELOW_BYTES;
}

export function insufficientStorage(cause?: unknown): InsufficientStorageError {
  return new InsufficientStorageError(
    'The server has run out of storage space, so this request could not be completed; nothing is wrong with the request. Try again later.',
    cause === undefined ? {} : { cause },
  );
}

/**
 * The error to answer for `error`, raised by work in `dir`: the storage error when the error says the
 * disk is full or the disk is full now (while the work's own files are still on it), else `error`.
 */
export async function blameFullDisk(error: unknown, dir: string): Promise<unknown> {
  if (error instanceof InsufficientStorageError) return error;
  if (saysOutOfSpace(error)) return insufficientStorage(error);
  try {
    return (await isFull(dir)) ? insufficientStorage(error) : error;
  } catch {
    // statfs failing says nothing about the request; its own error is the answer.
    return error;
  }
}

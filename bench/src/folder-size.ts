// The bytes a folder holds, read while a server writes and removes files in it: an entry that goes
// away between being listed and being read counts as nothing (a recursive readdir fails whole then).
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

export async function folderBytes(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  let total = 0;
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await folderBytes(path);
    else if (entry.isFile())
      total += await stat(path).then(
        (found) => found.size,
        () => 0,
      );
  }
  return total;
}

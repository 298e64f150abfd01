// Work folders in the system's temp folder, for engines built by tests (a server gives its engines
// folders in its own work area, storage/work-dirs.ts, which a later process reclaims if it dies).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkFolders } from './types.js';

export const tempFolders: WorkFolders = {
  create: (prefix) => mkdtemp(join(tmpdir(), `pdn-${prefix}`)),
  remove: (folder) => rm(folder, { recursive: true, force: true }),
};

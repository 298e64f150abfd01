// The outputs folder against the OutputStore contract, in a fresh data folder per test.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FolderOutputStore } from './folder-output-store.js';
import { outputStoreContract } from './output-store.contract.js';

let dataDir = '';
outputStoreContract({
  name: 'folder',
  async open() {
    dataDir = await mkdtemp(join(tmpdir(), 'pdn-outputs-'));
    return FolderOutputStore.open(dataDir);
  },
  dispose: () => rm(dataDir, { recursive: true, force: true }),
});

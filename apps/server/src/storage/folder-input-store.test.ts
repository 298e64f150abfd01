// The data folder's job inputs against the InputStore contract, in a fresh data folder per test.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FolderInputStore } from './folder-input-store.js';
import { inputStoreContract } from './input-store.contract.js';

let dataDir = '';
inputStoreContract({
  name: 'folder',
  async open() {
    dataDir = await mkdtemp(join(tmpdir(), 'pdn-inputs-'));
    return FolderInputStore.open(dataDir);
  },
  dispose: () => rm(dataDir, { recursive: true, force: true }),
});

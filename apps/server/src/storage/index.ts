// The storage door: signed downloads of stored outputs, jobs' stored inputs, per-request (and
// per-attempt) work folders, and the sweepers (of expired outputs, and of dead processes' work areas).
import type { Logger } from '../logger.js';
import { isFull } from './disk-space.js';
import { Downloads } from './downloads.js';
import { FolderInputStore } from './folder-input-store.js';
import { FolderOutputStore } from './folder-output-store.js';
import type { InputStore } from './input-store.js';
import type { OutputStore } from './output-store.js';
import { loadSigningSecret } from './signing-secret.js';
import { type SweepLock, startSweeper } from './sweeper.js';
import { UrlSigner } from './url-signer.js';
import { WorkDirs } from './work-dirs.js';

export { blameFullDisk, insufficientStorage, saysOutOfSpace } from './disk-space.js';
export { DOWNLOAD_PATH, Downloads } from './downloads.js';
export type { InputStore } from './input-store.js';
export { outputIdFor } from './output-id.js';
export type { OpenedOutput, OutputMeta, OutputStore } from './output-store.js';
export type { SweepLock } from './sweeper.js';
export { WorkDirs } from './work-dirs.js';

/** The shared backends' stores: the bucket, and the lock that lets one process at a time sweep it. */
export interface SharedStorage {
  outputs: OutputStore;
  inputs: InputStore;
  sweepLock: SweepLock;
}

export interface Storage {
  downloads: Downloads;
  /** Jobs' uploads until the jobs end: the data folder, or the bucket when shared. */
  inputs: InputStore;
  workDirs: WorkDirs;
  /** Whether the data folder has run out of space (GET /healthz reports it). */
  isFull(): Promise<boolean>;
  /** Stops the sweepers and removes this process's work area (every request has ended by then). */
  close(): Promise<void>;
}

/** How often expired outputs are looked for: a minute past expiry is soon enough to free the disk. */
const SWEEP_INTERVAL_MS = 60_000;

export async function openStorage(options: {
  dataDir: string;
  signingSecret: string | undefined;
  log: Logger;
  shared?: SharedStorage;
  /**
   * Its role's part (role.ts): whether this process sweeps expired outputs (default yes), and whether
   * other processes share its data folder (default no).
   */
  role?: { sweeps: boolean; sharesDataDir: boolean };
}): Promise<Storage> {
  const secret = await loadSigningSecret(options.dataDir, options.signingSecret);
  const store = options.shared?.outputs ?? (await FolderOutputStore.open(options.dataDir));
  const stopSweeper =
    options.role?.sweeps === false
      ? () => {}
      : startSweeper(store, {
          intervalMs: SWEEP_INTERVAL_MS,
          log: options.log,
          ...(options.shared === undefined ? {} : { lock: options.shared.sweepLock }),
        });
  // Every role reclaims dead processes' work areas: a deployment's only live process may be of any role.
  const workDirs = await WorkDirs.open(options.dataDir, {
    exclusive: options.role?.sharesDataDir !== true,
    log: options.log,
  });
  return {
    downloads: new Downloads(store, new UrlSigner(secret)),
    inputs: options.shared?.inputs ?? (await FolderInputStore.open(options.dataDir)),
    workDirs,
    isFull: () => isFull(options.dataDir),
    close: async () => {
      stopSweeper();
      await workDirs.close();
    },
  };
}

// The storage door: signed downloads of stored outputs, per-request work folders, and the sweeper.
import type { Logger } from '../logger.js';
import { isFull } from './disk-space.js';
import { Downloads } from './downloads.js';
import { FolderOutputStore } from './folder-output-store.js';
import type { OutputStore } from './output-store.js';
import { loadSigningSecret } from './signing-secret.js';
import { type SweepLock, startSweeper } from './sweeper.js';
import { UrlSigner } from './url-signer.js';
import { WorkDirs } from './work-dirs.js';

export { blameFullDisk, insufficientStorage, saysOutOfSpace } from './disk-space.js';
export { DOWNLOAD_PATH, Downloads } from './downloads.js';
export { outputIdFor } from './output-id.js';
export type { OpenedOutput, OutputMeta, OutputStore } from './output-store.js';
export type { SweepLock } from './sweeper.js';
export { WorkDirs } from './work-dirs.js';

export interface Storage {
  downloads: Downloads;
  workDirs: WorkDirs;
  /** Whether the data folder has run out of space (GET /healthz reports it). */
  isFull(): Promise<boolean>;
  /** Stops the sweeper. */
  close(): void;
}

/** How often expired outputs are looked for: a minute past expiry is soon enough to free the disk. */
const SWEEP_INTERVAL_MS = 60_000;

export async function openStorage(options: {
  dataDir: string;
  signingSecret: string | undefined;
  log: Logger;
  /** Shared backends (issue #15): the bucket, and the lock that lets one process at a time sweep it. */
  shared?: { outputs: OutputStore; sweepLock: SweepLock };
  /**
   * Issue #16 (role.ts): whether this process sweeps (default yes), and whether other processes share
   * its data folder, so its work area must be its own (default no).
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
  return {
    downloads: new Downloads(store, new UrlSigner(secret)),
    workDirs: options.role?.sharesDataDir
      ? await WorkDirs.openOwn(options.dataDir)
      : await WorkDirs.open(options.dataDir),
    isFull: () => isFull(options.dataDir),
    close: stopSweeper,
  };
}

// Everything createApp() needs, built by main.ts (or a test): the app opens nothing itself.
import type { Accounts } from '../accounts/index.js';
import type { Config } from '../config.js';
import type { Engines } from '../engines/types.js';
import type { JobRunner } from '../jobs/runner.js';
import type { Logger } from '../logger.js';
import type { Storage } from '../storage/index.js';
import type { Drain } from './drain.js';

export interface AppDeps {
  config: Config;
  accounts: Accounts;
  storage: Storage;
  engines: Engines;
  /** Runs every operation, synchronous or not (issue #13); main.ts starts and closes it. */
  jobs: JobRunner;
  log: Logger;
  /** Shutdown state, shared with main.ts, which starts the drain and cuts it off. */
  drain: Drain;
  /** The binaries this process's engines run, which /readyz checks are still there (issue #18); none for `--role api`. */
  tools: readonly string[];
}

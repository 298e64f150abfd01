// Everything createApp() needs, built by main.ts (or a test): the app opens nothing itself.
import type { Accounts, PasswordHasher } from '../accounts/index.js';
import type { Admission } from '../admission/admission.js';
import type { Config } from '../config.js';
import type { Converters } from '../engines/converters.js';
import type { Engines } from '../engines/types.js';
import type { Jobs } from '../jobs/index.js';
import type { Logger } from '../logger.js';
import type { Storage } from '../storage/index.js';
import type { WebhookDeliverer } from '../webhooks/deliverer.js';
import type { Drain } from './drain.js';

export interface AppDeps {
  config: Config;
  accounts: Accounts;
  storage: Storage;
  engines: Engines;
  /** Every operation, synchronous or not, is a job: stored, queued, waited on. */
  jobs: Jobs;
  /** Decides every call to an operation before its body is read. */
  admission: Admission;
  /**
   * Told of each submission's callback_url before its job is stored; lists and sends again a
   * user's deliveries for the account area.
   */
  webhooks: Pick<WebhookDeliverer, 'subscribe' | 'recent' | 'sendAgain'>;
  /** The account pages' password hashing, on threads of its own; main.ts starts and closes it. */
  passwords: PasswordHasher;
  log: Logger;
  /** Shutdown state, shared with main.ts, which starts the drain and cuts it off. */
  drain: Drain;
  /** The binaries this process's engines run, which /readyz checks are still there; none for `--role api`. */
  tools: readonly string[];
  /** The converters this process found at start-up, which /healthz shows. */
  converters: Converters;
}

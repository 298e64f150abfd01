// What a database backend provides (STYLE.md 14): one store per kind of record, as async interfaces
// that expose no connection type, over one database (a SQLite file in the data folder, or the shared
// PostgreSQL). Each room holds its own policy above its stores: accounts/ composes users, keys,
// sessions and limits; jobs/, idempotency/ and webhooks/ use theirs as they are. The composition
// module (backends/) opens a backend, hands the stores out and closes them last.
import type { AccountStores } from '../accounts/index.js';
import type { IdempotencyStore } from '../idempotency/idempotency-store.js';
import type { JobStore } from '../jobs/job-store.js';
import type { OutputRows } from '../storage/output-rows.js';
import type { DeliveryStore } from '../webhooks/delivery-store.js';

export interface Stores extends AccountStores {
  jobs: JobStore;
  /** Idempotency-Key records; idempotency/ holds their policy. */
  idempotency: IdempotencyStore;
  /** Webhook deliveries; webhooks/deliverer.ts holds their policy. */
  deliveries: DeliveryStore;
  /** Small outputs as rows; storage/small-outputs-inline.ts puts them there on the shared backends. */
  outputRows: OutputRows;
  /** Lets go of the database (the file handle, or nothing for a pool its owner closes). */
  close(): Promise<void>;
}

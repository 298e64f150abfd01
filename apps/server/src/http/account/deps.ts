// What the account area's routes need: the accounts interfaces, the password hasher, the webhook
// deliveries and the configuration, nothing else.
import type { Accounts, PasswordHasher } from '../../accounts/index.js';
import type { Config } from '../../config.js';
import type { WebhookDeliverer } from '../../webhooks/deliverer.js';

export interface AreaDeps {
  accounts: Accounts;
  config: Config;
  /** Hashes and checks passwords off the main thread and libuv's pool, fairly between addresses. */
  passwords: PasswordHasher;
  /** A user's latest deliveries, and sending one again. */
  webhooks: Pick<WebhookDeliverer, 'recent' | 'sendAgain'>;
}

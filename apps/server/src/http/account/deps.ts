// What the account area's routes need: the accounts interfaces, the password hasher and the
// configuration, nothing else.
import type { Accounts, PasswordHasher } from '../../accounts/index.js';
import type { Config } from '../../config.js';

export interface AreaDeps {
  accounts: Accounts;
  config: Config;
  /** Hashes and checks passwords off the main thread and libuv's pool, fairly between addresses. */
  passwords: PasswordHasher;
}

// What the account area's routes need: the accounts interfaces and the configuration, nothing else.
import type { Accounts } from '../../accounts/index.js';
import type { Config } from '../../config.js';

export interface AreaDeps {
  accounts: Accounts;
  config: Config;
}

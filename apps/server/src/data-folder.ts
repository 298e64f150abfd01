// The data folder as the `pdn-server` commands meet it (issue #10). Only `start` creates a database;
// the admin commands refuse a folder without one rather than make an empty database the server never
// reads (QA: `keys create` run in another folder made a key that got 401). Both point at ./.pdn-data,
// the default before issue #10, when a database sits there and none in the folder in use.
import { dirname, resolve } from 'node:path';
import { type Accounts, hasDatabase, openAccounts } from './accounts/index.js';

/** Where the data folder was by default before issue #10, relative to the folder a command ran in. */
const FORMER_DEFAULT = '.pdn-data';

/** An admin command was pointed at a data folder with no database; the message says what to do. */
export class NoDatabaseError extends Error {
  override name = 'NoDatabaseError';
}

/**
 * How to carry a database over from ./.pdn-data when `dataDir` has none and `cwd/.pdn-data` has one;
 * undefined otherwise.
 */
export function formerDataFolderHint(dataDir: string, cwd: string): string | undefined {
  const former = resolve(cwd, FORMER_DEFAULT);
  if (former === dataDir || hasDatabase(dataDir) || !hasDatabase(former)) return undefined;
  return [
    `${former} holds the database of an earlier pdn-server, which kept its data in ./.pdn-data by default.`,
    `To use it, stop the server and move it: mkdir -p ${dirname(dataDir)} && mv ${former} ${dataDir}`,
    `or point PDN_DATA_DIR at it: PDN_DATA_DIR=${former}`,
  ].join('\n');
}

/** The accounts in `dataDir`'s database; throws NoDatabaseError, with a hint, when it has none. */
export function openExistingAccounts(dataDir: string, cwd: string): Accounts {
  if (!hasDatabase(dataDir)) {
    throw new NoDatabaseError(
      [
        `no database in the data folder ${dataDir}; admin commands never create one.`,
        'Start the server once (pdn-server start, or npm start in the repository) to create it, or set',
        'PDN_DATA_DIR to the data folder of the server you mean.',
        formerDataFolderHint(dataDir, cwd),
      ]
        .filter((line) => line !== undefined)
        .join('\n'),
    );
  }
  return openAccounts(dataDir);
}

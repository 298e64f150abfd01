// The data folder as the `pdn-server` commands meet it. Only `start` creates a database;
// the admin commands refuse a folder without one rather than make an empty database the server never
// reads (QA: `keys create` run in another folder made a key that got 401). While ./.pdn-data, the
// former default, holds a database and the data folder none, `start` refuses too, so that
// moving the old folder into place stays one `mv` and no key silently stops working.
import { dirname, resolve } from 'node:path';
import { hasDatabase, openSqliteStores } from './database/sqlite/index.js';
import type { Stores } from './database/stores.js';

/** Where the data folder used to be by default, relative to the folder a command ran in. */
const FORMER_DEFAULT = '.pdn-data';

/** The data folder cannot be used as it is; the message says what to do. */
export class DataFolderError extends Error {
  override name = 'DataFolderError';
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
    `To use it, move it (with any server on it stopped): mkdir -p ${dirname(dataDir)} && mv ${former} ${dataDir}`,
    `or point PDN_DATA_DIR at it: PDN_DATA_DIR=${former}`,
  ].join('\n');
}

/** For `start`: throws DataFolderError rather than create a database beside a former ./.pdn-data. */
export function checkFormerDataFolder(dataDir: string, cwd: string): void {
  const hint = formerDataFolderHint(dataDir, cwd);
  if (hint === undefined) return;
  throw new DataFolderError(
    [
      `not creating a new, empty database in the data folder ${dataDir}:`,
      hint,
      `To start with a new, empty database instead, rename or remove ${resolve(cwd, FORMER_DEFAULT)}.`,
    ].join('\n'),
  );
}

/** The stores of `dataDir`'s database; throws DataFolderError, with a hint, when it has none. */
export function openExistingStores(dataDir: string, cwd: string): Stores {
  if (!hasDatabase(dataDir)) {
    throw new DataFolderError(
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
  return openSqliteStores(dataDir);
}

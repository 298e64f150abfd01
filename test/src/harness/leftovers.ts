// "No temp files left behind", checked on disk: every file under the server's data folder and its
// TMPDIR is listed before a request and compared after it. The server may remove temp files just after
// it answers, so the comparison waits (bounded) for them to go before reporting.
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { waitingGhostscripts } from './processes.js';
import type { TestServer } from './server.js';

/**
 * Not leftovers: SQLite's journal files (they come and go with every write), the outputs of
 * successful requests, which live until their download URL expires (the sweeper's business), and what
 * a server process keeps for as long as it runs: its work area (the folder itself, empty between
 * requests), its record in the registry of work areas in its TMPDIR, the profiles of its warm
 * Chromium and LibreOffice instances in its work area, and, in its TMPDIR, the two folders Playwright
 * keeps beside a running browser and the one holding the browser's single-instance socket (each
 * page's context keeps nothing there). A restarted server has new ones.
 */
const NOT_TEMPORARY =
  /-(wal|shm|journal)$|^data\/outputs\/.|(^|\/)tmp-processes\/[^/]+\/$|^tmp\/pdn-processes-[^/]+\/[^/]+\.json$|^tmp\/(org\.chromium\.Chromium\.|playwright-artifacts-|playwright_chromiumdev_profile-)[^/]+\/|(^|\/)tmp-processes\/[^/]+\/(chromium|libreoffice)-[^/]*\//;

/** The request work folders in every work area of the data folder `dataDir` (empty once requests end). */
export async function requestFolders(dataDir: string): Promise<string[]> {
  const areas = join(dataDir, 'tmp-processes');
  const found: string[] = [];
  for (const area of await readdir(areas).catch(() => [])) {
    for (const folder of await readdir(join(areas, area)).catch(() => [])) found.push(join(area, folder));
  }
  return found;
}

/**
 * Every file and folder under the server's folders, as paths relative to its root folder (folders end
 * in `/`: a per-request work folder left empty is a leftover too).
 */
export async function listFiles(server: TestServer): Promise<Set<string>> {
  const found = new Set<string>();
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        found.add(`${relative(server.rootDir, path)}/`);
        await walk(path);
      } else {
        found.add(relative(server.rootDir, path));
      }
    }
  };
  await walk(server.rootDir);
  return found;
}

/**
 * The folders, relative to the server's root folder and ending in `/`, of the Ghostscripts it keeps
 * waiting for the next compress (apps/server/src/engines/compress/ghostscript-spares.ts), with what
 * Ghostscript wrote there as it started: a server process keeps them as long as it runs, as it keeps
 * its warm instances' profiles. Only folders a live waiting Ghostscript works in: a dead one's is a
 * leftover.
 */
async function spareFolders(server: TestServer): Promise<string[]> {
  return (await waitingGhostscripts(server.dataDir)).map(
    ({ folder }) => `${relative(server.rootDir, folder)}/`,
  );
}

/**
 * Files that appeared since `before` (a listFiles snapshot) and are still there after waiting up to
 * `graceMs` for the server's clean-up. Use after requests that must leave nothing behind.
 */
export async function filesLeftSince(
  server: TestServer,
  before: Set<string>,
  graceMs = 5_000,
): Promise<string[]> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const now = await listFiles(server);
    const spares = await spareFolders(server);
    const left = [...now].filter(
      (path) =>
        !before.has(path) && !NOT_TEMPORARY.test(path) && !spares.some((folder) => path.startsWith(folder)),
    );
    if (left.length === 0 || Date.now() >= deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

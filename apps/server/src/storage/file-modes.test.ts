// Other local users must not read anyone's PDFs or the accounts (QA: the data folder was 0755 and
// outputs 0644). Whatever the umask, the server creates its folders 0700 and its files 0600.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../database/sqlite/sqlite-database.js';
import { createLogger } from '../logger.js';
import { openStorage } from './index.js';
import { newOutputId } from './output-id.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('file modes of the data folder', () => {
  let parent: string;
  let dataDir: string;
  beforeEach(() => {
    parent = mkdtempSync(join(tmpdir(), 'pdn-modes-'));
    dataDir = join(parent, 'data');
  });
  afterEach(() => rmSync(parent, { recursive: true, force: true }));

  it('creates the data folder 0700 and the database 0600 (accounts first)', () => {
    openDatabase(dataDir).close();
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(join(dataDir, 'pdn.sqlite'))).toBe(0o600);
  });

  it('creates the data folder and outputs 0700 and stores outputs 0600 (storage first)', async () => {
    const storage = await openStorage({ dataDir, signingSecret: undefined, log: createLogger('quiet') });
    try {
      const source = join(await storage.workDirs.create(), 'out.pdf');
      // As a tool writes it under a usual umask.
      await writeFile(source, '%PDF-1.7 test', { mode: 0o644 });
      await storage.downloads.publish(source, 'report.pdf', {
        id: newOutputId(),
        keepUntil: Date.now() + 60_000,
      });
      expect(modeOf(dataDir)).toBe(0o700);
      const outputs = join(dataDir, 'outputs');
      expect(modeOf(outputs)).toBe(0o700);
      const stored = await readdir(outputs);
      expect(stored).toHaveLength(2);
      for (const name of stored) expect([name, modeOf(join(outputs, name))]).toEqual([name, 0o600]);
    } finally {
      storage.close();
    }
  });
});

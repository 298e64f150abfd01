import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkFormerDataFolder,
  DataFolderError,
  formerDataFolderHint,
  openExistingStores,
} from './data-folder.js';
import { openSqliteForTest } from './database/contract-harness.js';

const root = mkdtempSync(join(tmpdir(), 'pdn-data-folder-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A fresh case folder: `cwd`, with `./.pdn-data` holding a database if asked, and a data folder. */
function layout(name: string, given: { former: boolean; current: boolean }) {
  const cwd = join(root, name);
  const dataDir = join(cwd, 'home', 'pdn');
  mkdirSync(cwd, { recursive: true });
  if (given.former) void openSqliteForTest(join(cwd, '.pdn-data')).close();
  if (given.current) void openSqliteForTest(dataDir).close();
  return { cwd, dataDir };
}

describe('formerDataFolderHint', () => {
  const cases: [string, { given: { former: boolean; current: boolean }; hint: boolean }][] = [
    ['a database only in ./.pdn-data', { given: { former: true, current: false }, hint: true }],
    ['databases in both', { given: { former: true, current: true }, hint: false }],
    ['a database only in the data folder', { given: { former: false, current: true }, hint: false }],
    ['no database anywhere', { given: { former: false, current: false }, hint: false }],
  ];
  it.each(cases)('%s: hint %s', (name, { given, hint }) => {
    const { cwd, dataDir } = layout(name.replaceAll(' ', '-'), given);
    const text = formerDataFolderHint(dataDir, cwd);
    if (!hint) return expect(text).toBeUndefined();
    expect(text).toContain(`mkdir -p ${join(cwd, 'home')} && mv ${join(cwd, '.pdn-data')} ${dataDir}`);
    expect(text).toContain(`PDN_DATA_DIR=${join(cwd, '.pdn-data')}`);
  });

  it('gives none when the data folder is ./.pdn-data itself', () => {
    const { cwd } = layout('itself', { former: true, current: false });
    expect(formerDataFolderHint(join(cwd, '.pdn-data'), cwd)).toBeUndefined();
  });
});

describe('openExistingStores', () => {
  it('opens a database that exists', () => {
    const { cwd, dataDir } = layout('exists', { former: false, current: true });
    openExistingStores(dataDir, cwd).close();
  });

  it('refuses a folder without one, creating nothing', () => {
    const { cwd, dataDir } = layout('absent', { former: false, current: false });
    expect(() => openExistingStores(dataDir, cwd)).toThrow(DataFolderError);
    expect(readdirSync(cwd)).toEqual([]);
  });
});

describe('checkFormerDataFolder', () => {
  it('refuses to start on a new database while ./.pdn-data holds one, creating nothing', () => {
    const { cwd, dataDir } = layout('start-former', { former: true, current: false });
    expect(() => checkFormerDataFolder(dataDir, cwd)).toThrow(
      /not creating a new, empty database[\s\S]*rename or remove .*\.pdn-data/,
    );
    expect(readdirSync(cwd)).toEqual(['.pdn-data']);
  });

  it('lets a data folder with a database start, whatever ./.pdn-data holds', () => {
    const { cwd, dataDir } = layout('start-both', { former: true, current: true });
    checkFormerDataFolder(dataDir, cwd);
  });
});

import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configPath, maskApiKey, readConfig, writeConfig } from './config-file.js';
import { ConfigFileError } from './errors.js';

describe('configPath', () => {
  it('lives under XDG_CONFIG_HOME', () => {
    expect(configPath({ XDG_CONFIG_HOME: '/x' })).toBe('/x/pdn/config.json');
  });
  it('falls back to ~/.config when XDG_CONFIG_HOME is empty', () => {
    expect(configPath({ XDG_CONFIG_HOME: '' })).toMatch(/\.config\/pdn\/config\.json$/);
  });
});

describe('maskApiKey', () => {
  const cases: [string, { given: string; want: string }][] = [
    ['a live key', { given: `pdn_live_${'a'.repeat(28)}c0de`, want: 'pdn_live_…c0de' }],
    ['a test key', { given: `pdn_test_${'0'.repeat(28)}beef`, want: 'pdn_test_…beef' }],
    ['something short shows nothing', { given: 'secret', want: '****' }],
    ['an unknown format shows only its tail', { given: 'abcdefghijkl', want: '…ijkl' }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(maskApiKey(given)).toBe(want);
  });
});

describe('readConfig / writeConfig', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdn-cli-config-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a missing file is an empty config', async () => {
    expect(await readConfig(join(dir, 'none.json'))).toEqual({});
  });

  it('writes a file only its owner can read, in a folder only its owner can enter', async () => {
    const path = join(dir, 'pdn', 'config.json');
    await writeConfig(path, { api_key: 'k', base_url: 'http://h' });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'pdn'))).mode & 0o777).toBe(0o700);
    expect(await readConfig(path)).toEqual({ api_key: 'k', base_url: 'http://h' });
  });

  it('tightens a file that was world-readable', async () => {
    const path = join(dir, 'config.json');
    await writeFile(path, '{}', { mode: 0o644 });
    await writeConfig(path, { api_key: 'k' });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ api_key: 'k' });
  });

  const broken: [string, string][] = [
    ['not JSON', '{ api_key: '],
    ['an array', '[]'],
  ];
  it.each(broken)('refuses a file that is %s', async (_name, text) => {
    const path = join(dir, 'config.json');
    await writeFile(path, text);
    await expect(readConfig(path)).rejects.toBeInstanceOf(ConfigFileError);
  });

  it('ignores fields it does not know and values that are not strings', async () => {
    const path = join(dir, 'config.json');
    await writeFile(path, JSON.stringify({ api_key: 42, base_url: 'http://h', colour: 'red' }));
    expect(await readConfig(path)).toEqual({ base_url: 'http://h' });
  });
});

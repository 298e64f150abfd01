// The user's config file, after Stripe's CLI: `$XDG_CONFIG_HOME/pdn/config.json` (else
// `~/.config/pdn/config.json`), readable by its owner only (0600) because it holds an API key.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigFileError } from './errors.js';

/** What the file may hold. Field names are the file's JSON keys. */
export interface ConfigValues {
  api_key?: string;
  base_url?: string;
}

/** The names `pdn config set|get|unset` accept, and the file key each one maps to. */
export const CONFIG_KEYS = { 'api-key': 'api_key', 'base-url': 'base_url' } as const;
export type ConfigKey = keyof typeof CONFIG_KEYS;

export function configPath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'pdn', 'config.json');
}

/** Reads the file; a missing file is an empty config, an unreadable one is a ConfigFileError. */
export async function readConfig(path: string): Promise<ConfigValues> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigFileError(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigFileError(`${path} is not valid JSON; fix or delete it`, { cause: error });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigFileError(`${path} must hold a JSON object`);
  }
  const values: ConfigValues = {};
  for (const field of Object.values(CONFIG_KEYS)) {
    const value = (parsed as Record<string, unknown>)[field];
    if (typeof value === 'string' && value !== '') values[field] = value;
  }
  return values;
}

/**
 * Replaces the file atomically (temp file in the same folder, then rename) so a crash never leaves
 * half a key behind, and creates it 0600 inside a 0700 folder so the key is never world-readable,
 * not even for the moment between write and chmod.
 */
export async function writeConfig(path: string, values: ConfigValues): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(values, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await rename(temp, path);
    // An older file may have been looser; rename keeps the temp file's 0600, but the umask may not.
    await chmod(path, 0o600);
  } catch (error) {
    await rm(temp, { force: true });
    throw new ConfigFileError(`cannot write ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** `pdn_live_…c0ffee` style: enough to tell keys apart, never enough to use one. */
export function maskApiKey(key: string): string {
  const prefix = /^pdn_(?:live|test)_/.exec(key)?.[0] ?? '';
  const rest = key.slice(prefix.length);
  if (rest.length <= 8) return `${prefix}****`;
  return `${prefix}…${rest.slice(-4)}`;
}

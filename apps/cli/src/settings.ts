// Where the API key and base URL come from, in gh's and Stripe's order: the flag, then the
// environment (PDN_API_KEY, PDN_BASE_URL), then the config file. Each value
// keeps its source, so a refused key or an unreachable server can say which setting to check.
import type { ConfigValues } from './config-file.js';

export interface ConnectionFlags {
  apiKey?: string | undefined;
  baseUrl?: string | undefined;
}

/** Where a setting was found; `default` only for the base URL (the SDK's local server). */
export type SettingSource = 'flag' | 'env' | 'config' | 'default';

export interface Connection {
  apiKey: string | undefined;
  /** Undefined means the SDK's own default (the local server). */
  baseUrl: string | undefined;
  apiKeySource: SettingSource;
  baseUrlSource: SettingSource;
}

export function resolveConnection(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv,
  config: ConfigValues,
): Connection {
  const apiKey = firstSet(flags.apiKey, env.PDN_API_KEY, config.api_key);
  const baseUrl = firstSet(flags.baseUrl, env.PDN_BASE_URL, config.base_url);
  return {
    apiKey: apiKey?.value,
    baseUrl: baseUrl?.value,
    apiKeySource: apiKey?.source ?? 'default',
    baseUrlSource: baseUrl?.source ?? 'default',
  };
}

/** How a person sets each source: `PDN_API_KEY`, `--base-url`, `the config file (path)`. */
export function describeSource(
  setting: 'api-key' | 'base-url',
  source: SettingSource,
  configPath: string,
): string {
  switch (source) {
    case 'flag':
      return `--${setting}`;
    case 'env':
      return setting === 'api-key' ? 'PDN_API_KEY' : 'PDN_BASE_URL';
    case 'config':
      return `the config file (${configPath})`;
    case 'default':
      return 'the default';
  }
}

const ORDER = ['flag', 'env', 'config'] as const;

/** An empty value counts as unset, so `PDN_API_KEY= pdn ...` falls through to the config file. */
function firstSet(...values: (string | undefined)[]): { value: string; source: SettingSource } | undefined {
  const index = values.findIndex((value) => value !== undefined && value.trim() !== '');
  if (index < 0) return undefined;
  return { value: (values[index] as string).trim(), source: ORDER[index] as SettingSource };
}

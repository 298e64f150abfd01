// Where the API key and base URL come from, in gh's and Stripe's order: the flag, then the
// environment (PDN_API_KEY, PDN_BASE_URL), then the config file (issue #5, "Global").
import type { ConfigValues } from './config-file.js';

export interface ConnectionFlags {
  apiKey?: string | undefined;
  baseUrl?: string | undefined;
}

export interface Connection {
  apiKey: string | undefined;
  /** Undefined means the SDK's own default (the local server). */
  baseUrl: string | undefined;
}

export function resolveConnection(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv,
  config: ConfigValues,
): Connection {
  return {
    apiKey: firstSet(flags.apiKey, env.PDN_API_KEY, config.api_key),
    baseUrl: firstSet(flags.baseUrl, env.PDN_BASE_URL, config.base_url),
  };
}

/** An empty value counts as unset, so `PDN_API_KEY= pdn ...` falls through to the config file. */
function firstSet(...values: (string | undefined)[]): string | undefined {
  return values.find((value) => value !== undefined && value.trim() !== '')?.trim();
}

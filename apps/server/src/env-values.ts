// Reading one environment variable as the server's settings read them all: blank is unset, and a value
// that is not what the variable takes stops the server at start (ConfigError) rather than being guessed.
import { ConfigError } from './config-error.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** The variable's value, trimmed; undefined when unset or blank. */
export function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** A whole number from `min` to `max`, or `fallback` when unset. */
export function integer(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  // Digits only: Number('1e3'), Number('0x10') and parseInt('10abc') would all accept surprises.
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got '${raw}'`);
  }
  return value;
}

/** `true` or `false`, or `fallback` when unset. */
export function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (raw !== 'true' && raw !== 'false') throw new ConfigError(`${name} must be true or false, got '${raw}'`);
  return raw === 'true';
}

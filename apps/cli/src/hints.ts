// What a person should check next, added to human error lines only; --json keeps the
// API's and SDK's messages as they are. The facts come from how the command connected.
import { describeWhen } from './when.js';

/** Where this run's settings came from, as a person would change them. */
export interface ConnectionFacts {
  /** The base URL actually used. */
  baseUrl: string;
  /** `PDN_BASE_URL`, `--base-url`, `the config file (…)` or `the default`. */
  baseUrlFrom: string;
  /** The key, masked (`pdn_live_…c0de`). */
  maskedKey: string;
  apiKeyFrom: string;
}

/**
 * The one line for a batch stopped because the server could not be reached (exit 6): what failed,
 * and the two things to check, the server and the URL setting.
 */
export function unreachableLine(message: string, facts: ConnectionFacts | undefined): string {
  if (facts === undefined) return `${message}. Is the pdn server running? Check PDN_BASE_URL or --base-url.`;
  const setting =
    facts.baseUrlFrom === 'the default'
      ? 'No base URL is set, so this is the default; set one with PDN_BASE_URL or --base-url.'
      : `The URL comes from ${facts.baseUrlFrom}; set another with PDN_BASE_URL or --base-url.`;
  return `${message}. Is the pdn server running at ${facts.baseUrl}? ${setting}`;
}

/** After a 401: which key was refused and where it came from. */
export function keyHint(facts: ConnectionFacts | undefined): string {
  if (facts === undefined) return '';
  return ` The key ${facts.maskedKey} came from ${facts.apiKeyFrom}.`;
}

/** After a 429: when that is on the local clock, and where to see the plan's usage. */
export function rateLimitHint(retryAfterSeconds: number | undefined, now: Date): string {
  const at =
    retryAfterSeconds === undefined
      ? ''
      : ` That is at ${describeWhen(new Date(now.getTime() + retryAfterSeconds * 1000), now)}.`;
  return `${at} \`pdn status\` shows your plan and the calls left.`;
}

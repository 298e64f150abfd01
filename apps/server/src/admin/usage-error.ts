// A command line `pdn-server` cannot run as written; bin.ts answers it with exit code 2 and the usage.
export class UsageError extends Error {
  override name = 'UsageError';
}

// What a `pdn-server start --role …` process plays (STYLE.md 19): roles only decide what
// the composition (main.ts) starts, never how anything works. `all` is the one process of the
// embedded mode; `api` and `worker` split it over processes that share the PostgreSQL, Redis and S3 backends.
import type { BackendConfig } from './backends/backend-config.js';
import { ConfigError } from './config-error.js';

export const ROLES = ['all', 'api', 'worker'] as const;
export type Role = (typeof ROLES)[number];

export interface RoleParts {
  /**
   * Serves the API, the account pages and the docs, and takes submissions. Every role listens on its
   * PORT for the operational routes (/healthz, /readyz, /metrics), so a worker is watched like the rest.
   */
  api: boolean;
  /** Runs jobs: claimed from the store (embedded) or taken from BullMQ (shared backends). */
  runner: boolean;
  /** Deletes expired outputs and forgets old jobs: one role only, so workers stay on the work. */
  sweeper: boolean;
}

const PARTS: Readonly<Record<Role, RoleParts>> = {
  all: { api: true, runner: true, sweeper: true },
  api: { api: true, runner: false, sweeper: true },
  worker: { api: false, runner: true, sweeper: false },
};

export function partsOf(role: Role): RoleParts {
  return PARTS[role];
}

/**
 * The role named by `--role` (default `all`). `api` and `worker` need the shared backends: with the
 * embedded ones each process would have its own database and outputs, and no job would ever cross.
 */
export function parseRole(raw: string | undefined, backends: BackendConfig): Role {
  if (raw === undefined) return 'all';
  const role = ROLES.find((name) => name === raw);
  if (role === undefined) throw new ConfigError(`--role must be one of ${ROLES.join(', ')}, got '${raw}'`);
  if (role !== 'all' && backends.kind !== 'shared')
    throw new ConfigError(
      `--role ${role} needs the shared backends (PDN_DATABASE_URL, PDN_REDIS_URL, PDN_S3_BUCKET, PDN_S3_REGION, PDN_SIGNING_SECRET; README "Scaling out"): without them only --role all can run`,
    );
  return role;
}

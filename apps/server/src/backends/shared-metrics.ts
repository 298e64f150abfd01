// The shared backends' connections for GET /metrics: the PostgreSQL pool's clients and
// the queries waiting for one, and the Redis client's connection status. Registered only when these
// backends are open (the embedded server has none to show), read at each scrape, and removed when
// they close, so a process that opens them again registers them again.
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { Gauge } from 'prom-client';
import { registry } from '../metrics.js';
import type { Cleanups } from './cleanups.js';

/** ioredis's connection statuses (`redis.status`). */
const REDIS_STATUSES = ['wait', 'connecting', 'connect', 'ready', 'reconnecting', 'close', 'end'] as const;

export function watchSharedConnections(pool: pg.Pool, redis: Redis, cleanups: Cleanups): void {
  const gauges = [
    new Gauge({
      name: 'pdn_postgres_pool_clients',
      help: 'PostgreSQL pool clients, by state (idle, busy).',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'busy' }, pool.totalCount - pool.idleCount);
      },
    }),
    new Gauge({
      name: 'pdn_postgres_pool_waiting',
      help: 'Queries waiting for a PostgreSQL pool client.',
      registers: [registry],
      collect() {
        this.set(pool.waitingCount);
      },
    }),
    new Gauge({
      name: 'pdn_redis_connection',
      help: "1 for the Redis client's connection status now (ioredis: ready, reconnecting, ...), 0 for the others.",
      labelNames: ['status'] as const,
      registers: [registry],
      collect() {
        for (const status of REDIS_STATUSES) this.set({ status }, redis.status === status ? 1 : 0);
      },
    }),
  ];
  cleanups.add('metrics of the shared backends', () => {
    for (const gauge of gauges) registry.removeSingleMetric((gauge as unknown as { name: string }).name);
  });
}

// @pdn/server's public door: what an embedding program or a test needs to run the reference server.
// The admin command and `npm start` use bin.ts; everything else in src/ is private.

export { RateLimiter } from './accounts/rate-limiter.js';
// The rate limiter over each backend's store, for the bench's per-decision figures.
export { RedisRateEvents } from './accounts/redis/redis-rate-events.js';
export { type Config, ConfigError, loadConfig } from './config.js';
// Databases as an older server left them, for the upgrade tests.
export { postgresSchemaAt, sqliteSchemaAt } from './database/schema-at.js';
export { openSqliteStores } from './database/sqlite/index.js';
export { type AppDeps, createApp } from './http/app.js';
export { createLogger, type Logger } from './logger.js';
export { type RunningServer, startServer } from './main.js';

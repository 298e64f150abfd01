// @pdn/server's public door: what an embedding program or a test needs to run the reference server.
// The admin command and `npm start` use bin.ts; everything else in src/ is private.
export { type Config, ConfigError, loadConfig } from './config.js';
export { type AppDeps, createApp } from './http/app.js';
export { createLogger, type Logger } from './logger.js';
export { type RunningServer, startServer } from './main.js';

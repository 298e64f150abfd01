// One real server per test file (started in beforeAll, stopped and removed in afterAll), with calls
// that go through contract validation. Keeps each suite to the lines that matter.
import { afterAll, beforeAll } from 'vitest';
import { type CallOptions, type CallResult, call } from '../contract/checked-fetch.js';
import { type StartOptions, startServer, type TestServer } from './server.js';

export interface ServerContext {
  /** The running server; valid inside tests and hooks, not at collection time. */
  readonly server: TestServer;
  /** `call()` against this server: validated against the OpenAPI document, throws on a violation. */
  call<T = unknown>(path: string, options?: CallOptions): Promise<CallResult<T>>;
}

export function useServer(options: StartOptions = {}): ServerContext {
  let running: TestServer | undefined;
  beforeAll(async () => {
    running = await startServer(options);
  });
  afterAll(async () => {
    await running?.stop();
  });
  const context: ServerContext = {
    get server() {
      if (!running) throw new Error('the server is not running: use it inside a test or hook');
      return running;
    },
    call: async (path, callOptions) => {
      const server = context.server;
      try {
        return await call(server.baseUrl, path, callOptions);
      } catch (error) {
        // A connection failure says little by itself; the server's state and last words say why.
        if (!(error instanceof TypeError)) throw error;
        const state = server.exit ?? 'still running';
        throw new Error(
          `${path}: ${error.message} (server ${state}); its output ends:\n${server.output.slice(-4000)}`,
          {
            cause: error,
          },
        );
      }
    },
  };
  return context;
}

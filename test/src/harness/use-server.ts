// One real server per test file (started in beforeAll, stopped and removed in afterAll), with calls
// that go through contract validation. Keeps each suite to the lines that matter. Before stopping it,
// afterAll also checks that no temp file or folder outlived the suite's requests,
// whatever those requests were, so no suite can forget to.
import { afterAll, beforeAll } from 'vitest';
import { type CallOptions, type CallResult, call } from '../contract/checked-fetch.js';
import { filesLeftSince, listFiles } from './leftovers.js';
import { type StartOptions, startServer, type TestServer } from './server.js';

export interface ServerContext {
  /** The running server; valid inside tests and hooks, not at collection time. */
  readonly server: TestServer;
  /** `call()` against this server: validated against the OpenAPI document, throws on a violation. */
  call<T = unknown>(path: string, options?: CallOptions): Promise<CallResult<T>>;
}

export function useServer(options: StartOptions = {}): ServerContext {
  let running: TestServer | undefined;
  let atStart = new Set<string>();
  beforeAll(async () => {
    running = await startServer(options);
    atStart = await listFiles(running);
  });
  afterAll(async () => {
    if (!running) return;
    try {
      const left = await filesLeftSince(running, atStart);
      if (left.length > 0)
        throw new Error(`temp files outlived the suite's requests:\n  ${left.join('\n  ')}`);
    } finally {
      await running.stop();
    }
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

// One Chromium for the server's life, started at the first page and kept warm: a page then costs a
// fresh browser context (about 10 ms), not a browser start (about a second). Each call gets a context
// of its own, closed after it, so no cookie, cache or storage passes from one caller to the next. A
// browser that died (a crash, the out-of-memory killer) is started again at the next call.
import { tmpdir } from 'node:os';
import { type Browser, chromium } from 'playwright-core';
import { withToolMark } from '../../processes/spawn-tool.js';
import { ensureToolReaper } from '../../processes/tool-reaper.js';
import type { EngineLog, WorkFolders } from '../types.js';
import { chromiumCommand } from './chromium-command.js';

/** A start that takes longer is a broken install, not a busy machine. */
const LAUNCH_TIMEOUT_MS = 60_000;

interface Running {
  browser: Browser;
  profileDir: string;
}

export class WarmBrowser {
  #running: Promise<Running> | undefined;
  #closed = false;

  constructor(
    readonly executable: string,
    readonly folders: WorkFolders,
    readonly log: EngineLog,
  ) {}

  /** The browser, started now if it is not running. */
  async browser(): Promise<Browser> {
    if (this.#closed) throw new Error('the browser was closed');
    const running = this.#running;
    if (running !== undefined) {
      const current = await running.catch(() => undefined);
      if (current?.browser.isConnected()) return current.browser;
      if (this.#running === running) this.#running = undefined;
      if (current !== undefined) {
        this.log.warn('chromium was gone; starting it again');
        await this.#dispose(current);
      }
    }
    this.#running ??= this.#launch();
    return (await this.#running).browser;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const running = await this.#running?.catch(() => undefined);
    this.#running = undefined;
    if (running !== undefined) await this.#dispose(running);
  }

  async #launch(): Promise<Running> {
    // In this process's work area, so that a later process removes it when this one was killed.
    const profileDir = await this.folders.create('chromium-');
    const [executablePath, args] = chromiumCommand(this.executable, profileDir);
    ensureToolReaper();
    const started = performance.now();
    try {
      const browser = await chromium.launch({
        executablePath,
        args,
        ignoreDefaultArgs: true,
        // The browser and what it starts carry the mark, so the watchdog finds them after our death.
        env: withToolMark({
          PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
          LANG: 'C.UTF-8',
          HOME: profileDir,
          // Not the profile: Chromium makes its single-instance socket in a folder of TMPDIR, and a
          // Unix socket's path may not pass 107 bytes, which a deep data folder would.
          TMPDIR: tmpdir(),
        }),
        // The server's own shutdown closes it (engines' cleanups); Playwright must not act on signals.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        timeout: LAUNCH_TIMEOUT_MS,
      });
      this.log.info('chromium started', {
        version: browser.version(),
        ms: Math.round(performance.now() - started),
      });
      return { browser, profileDir };
    } catch (error) {
      await this.folders.remove(profileDir);
      throw error;
    }
  }

  async #dispose({ browser, profileDir }: Running): Promise<void> {
    await browser.close().catch(() => undefined);
    await this.folders.remove(profileDir);
  }
}

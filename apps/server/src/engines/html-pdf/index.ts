// HTML to PDF (openapi.yaml operation `htmlToPdf`) with Debian's Chromium, driven over the DevTools
// protocol by Playwright: the client the end-to-end tests already use, which knows the protocol's
// request interception, load states and printing, where an own client would have to learn them.
// One warm browser (warm-browser.ts), one fresh context per page (print-page.ts), no network and no
// file but the upload (page-origin.ts), scripts off unless asked for, every call under the plan's
// time and page budgets. Where Chromium is not installed, the call answers the 501 naming it.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError, InternalError } from '../../errors.js';
import { requireConverter } from '../converters.js';
import type { CpuSlots } from '../cpu-slots.js';
import { ToolAbortedError } from '../run-tool.js';
import type { DetectedTools } from '../tools.js';
import type { EngineLog, WorkContext, WorkFolders } from '../types.js';
import { printPage } from './print-page.js';
import type { HtmlBudget, HtmlPage, HtmlPdfEngine, HtmlPdfOutput, PrintOptions } from './types.js';
import { WarmBrowser } from './warm-browser.js';

export type { HtmlBudget, HtmlPage, HtmlPdfEngine, PageFile, PrintOptions, WaitUntil } from './types.js';

export interface HtmlPdfEngineOptions {
  /** The tools found at start-up: Chromium among them, or not. */
  tools: DetectedTools;
  cpuSlots: CpuSlots;
  /** Where the browser's profile is made. */
  folders: WorkFolders;
  log: EngineLog;
}

export function createHtmlPdfEngine(o: HtmlPdfEngineOptions): HtmlPdfEngine {
  // Started at the first page, not with the server: a server never asked for HTML holds no browser.
  let browser: WarmBrowser | undefined;
  return {
    async toPdf(
      page: HtmlPage,
      options: PrintOptions,
      budget: HtmlBudget,
      job: WorkContext,
    ): Promise<HtmlPdfOutput> {
      requireConverter(o.tools, 'html');
      // Found by requireConverter, so never the fallback.
      browser ??= new WarmBrowser(o.tools.chromium?.path ?? 'chromium', o.folders, o.log);
      const warm = browser;
      const path = join(job.workDir, 'page.pdf');
      return o.cpuSlots.run(async () => {
        const printed = await warm
          .browser()
          .then((running) => printPage(running, page, options, budget, path, job.signal))
          .catch((error: unknown) => {
            if (error instanceof ApiError || error instanceof ToolAbortedError) throw error;
            // A browser that would not start, or died under the page: the log says which.
            throw new InternalError(`Chromium failed to print the page: ${String(error)}`, { cause: error });
          });
        return {
          path,
          pageCount: printed.pageCount,
          size: (await stat(path)).size,
          blocked: printed.blocked,
        };
      }, job.signal);
    },
    close: async () => browser?.close(),
  };
}

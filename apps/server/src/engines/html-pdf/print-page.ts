// One page printed: a fresh browser context of its own (no cookie, cache or storage shared with any
// other call), every request answered by the page's origin (page-origin.ts), the page loaded, waited
// for as asked, and printed with Chromium's Page.printToPDF. The whole call runs under the plan's
// time budget: a page that never ends loading, or whose script never returns, is cut there by closing
// its context, which ends its renderer whatever it is doing. At most one page past the plan's page
// budget is printed, so a page of a million lines costs what the budget allows, and is refused.
import type { PaperSize } from '@pdn/api-types';
import type { Browser, BrowserContext } from 'playwright-core';
import { InvalidInputError } from '../../errors.js';
import { ToolAbortedError } from '../run-tool.js';
import { countPages } from './page-count.js';
import { PAGE_URL, PageOrigin } from './page-origin.js';
import type { HtmlBudget, HtmlPage, PrintOptions } from './types.js';

/** Chromium's names of the papers the contract offers (openapi.yaml `PaperSize`). */
const FORMATS: Readonly<Record<PaperSize, string>> = {
  a3: 'A3',
  a4: 'A4',
  a5: 'A5',
  letter: 'Letter',
  legal: 'Legal',
  tabloid: 'Tabloid',
};

/** A context whose renderer does not let go within this long is ended with its browser. */
const CLOSE_TIMEOUT_MS = 5_000;

/** What the call was doing when its time ran out, for the message. */
type Step = 'loading the page' | 'waiting for `wait_for`' | 'printing';

export interface PrintedPage {
  pageCount: number;
  blocked: string[];
}

function overTime(step: Step, budget: HtmlBudget): InvalidInputError {
  return new InvalidInputError(
    `The page did not finish within ${budget.seconds} seconds (it was still ${step}); ${budget.holder} ` +
      `allows at most ${budget.seconds} seconds of loading, scripts and printing per request. Check that its ` +
      'scripts end, that `wait_for` names an element the page makes, and that with `wait_until=network_idle` ' +
      'it stops asking for resources.',
  );
}

function overPages(budget: HtmlBudget): InvalidInputError {
  return new InvalidInputError(
    `The page prints to more than ${budget.maxPages} pages; ${budget.holder} allows at most ` +
      `${budget.maxPages} pages per request. Send a shorter page, or split it in several requests.`,
  );
}

/** Playwright's message for a selector it cannot parse, as a 400 naming the field. */
function badSelector(error: unknown, selector: string): InvalidInputError | undefined {
  const message = error instanceof Error ? error.message : '';
  if (!/selector|Unexpected token|parse/i.test(message) || /Target .*closed|has been closed/i.test(message)) {
    return undefined;
  }
  return new InvalidInputError(`\`wait_for\` must be a CSS selector; "${selector}" is not one.`);
}

async function closeContext(context: BrowserContext, browser: Browser): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    context.close().then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), CLOSE_TIMEOUT_MS);
    }),
  ]).catch(() => false);
  clearTimeout(timer);
  // The warm browser starts a new one at the next call.
  if (!closed) await browser.close().catch(() => undefined);
}

/**
 * Prints `page` to `output` under `budget`. Throws InvalidInputError past a budget or for a bad
 * selector, ToolAbortedError when `signal` (the caller gone, the job canceled) aborts first.
 */
export async function printPage(
  browser: Browser,
  page: HtmlPage,
  options: PrintOptions,
  budget: HtmlBudget,
  output: string,
  signal: AbortSignal,
): Promise<PrintedPage> {
  if (signal.aborted) throw new ToolAbortedError('chromium');
  const origin = new PageOrigin(page);
  const context = await browser.newContext({
    javaScriptEnabled: options.javascript,
    serviceWorkers: 'block',
    acceptDownloads: false,
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  let step: Step = 'loading the page';
  let cut: Error | undefined;
  let closing: Promise<void> | undefined;
  const stop = (reason: Error) => {
    cut ??= reason;
    closing ??= closeContext(context, browser);
  };
  const onAbort = () => stop(new ToolAbortedError('chromium'));
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => stop(overTime(step, budget)), budget.seconds * 1000);
  try {
    await context.route('**/*', origin.route);
    const tab = await context.newPage();
    await tab.goto(PAGE_URL, {
      waitUntil: options.waitUntil === 'network_idle' ? 'networkidle' : 'load',
      timeout: 0,
    });
    if (options.waitFor !== undefined) {
      step = 'waiting for `wait_for`';
      await tab
        .waitForSelector(`css=${options.waitFor}`, { state: 'attached', timeout: 0 })
        .catch((error) => {
          throw badSelector(error, options.waitFor ?? '') ?? error;
        });
    }
    step = 'printing';
    const header = options.headerTemplate;
    const footer = options.footerTemplate;
    const margin = `${options.marginMm}mm`;
    await tab.pdf({
      path: output,
      format: FORMATS[options.paperSize],
      landscape: options.landscape,
      printBackground: options.printBackground,
      margin: { top: margin, right: margin, bottom: margin, left: margin },
      // Chromium fills a band left without a template with the date and title: an empty one shows none.
      displayHeaderFooter: header !== undefined || footer !== undefined,
      headerTemplate: header ?? '<span></span>',
      footerTemplate: footer ?? '<span></span>',
      // Chromium caps the range at the document's end: one page past the budget tells it was passed.
      pageRanges: `1-${budget.maxPages + 1}`,
    });
    const pageCount = await countPages(output);
    if (pageCount > budget.maxPages) throw overPages(budget);
    return { pageCount, blocked: origin.blocked };
  } catch (error) {
    throw cut ?? error;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    await (closing ?? closeContext(context, browser));
  }
}

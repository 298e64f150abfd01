// HTML to PDF (openapi.yaml operation `htmlToPdf`): the uploaded page, with its assets beside it, printed
// to one PDF. The assets' names are their paths on the page's origin, checked here once at the route;
// the engine judges the budgets as it prints.
import type { HtmlToPdfResult, PaperSize } from '@pdn/api-types';
import type { HtmlBudget, HtmlPdfEngine, PrintOptions, WaitUntil } from '../engines/html-pdf/index.js';
import { InvalidInputError } from '../errors.js';
import { htmlPdfName } from './output-names.js';
import { labelled, type Operation, type OperationInput } from './types.js';

export const HTML_PART = 'html';
export const ASSETS_PART = 'assets[]';
export const PAPER_SIZES: readonly PaperSize[] = ['a4', 'letter', 'legal', 'a3', 'a5', 'tabloid'];
export const WAIT_UNTIL: readonly WaitUntil[] = ['load', 'network_idle'];
/** openapi.yaml `htmlToPdf` `assets[]`: maxItems. */
const MAX_ASSETS = 50;
/** openapi.yaml `htmlToPdf` `margin_mm`: maximum, and the default: Chromium's own print margin is about 10 mm. */
const MAX_MARGIN_MM = 50;
const DEFAULT_MARGIN_MM = 10;
/** openapi.yaml `htmlToPdf`: `header_template` and `footer_template` maxLength, `wait_for` maxLength. */
const MAX_TEMPLATE_LENGTH = 16_384;
const MAX_SELECTOR_LENGTH = 1_024;
/** One segment of an asset's path: letters, digits, `.`, `_`, `-` and spaces, not `.` or `..`. */
const SEGMENT = /^[\p{L}\p{N}._ -]{1,200}$/u;

export interface HtmlToPdfParams extends PrintOptions {
  budget: HtmlBudget;
}

/** Refuses a missing page, too many assets, or an asset name the page could not ask for by path. */
export function checkAssets(html: number, assets: readonly OperationInput[]): void {
  if (html !== 1) {
    throw new InvalidInputError(
      `HTML to PDF takes exactly one page in the part \`${HTML_PART}\`; got ${html}.`,
    );
  }
  if (assets.length > MAX_ASSETS) {
    throw new InvalidInputError(
      `HTML to PDF takes at most ${MAX_ASSETS} files in the repeated part \`${ASSETS_PART}\`; got ${assets.length}.`,
    );
  }
  const seen = new Set<string>(['index.html']);
  for (const [index, asset] of assets.entries()) {
    const segments = asset.name.split('/');
    if (!segments.every((segment) => SEGMENT.test(segment) && segment !== '.' && segment !== '..')) {
      throw new InvalidInputError(
        `Asset ${index + 1} is named "${asset.name}": name each asset by the path the page uses for it, ` +
          'relative to the page (`css/site.css`): letters, digits, `.`, `_`, `-` and spaces, in segments joined by `/`, no `..`.',
      );
    }
    if (seen.has(asset.name)) {
      throw new InvalidInputError(
        `Asset ${index + 1} is named "${asset.name}", ${asset.name === 'index.html' ? 'the name the page itself is served under' : 'as an asset before it'}; each path may be uploaded once.`,
      );
    }
    seen.add(asset.name);
  }
}

/** openapi.yaml `htmlToPdf` `margin_mm`: 10 when absent. */
export function parseMarginMm(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_MARGIN_MM;
  const value = Number(raw.trim());
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || value > MAX_MARGIN_MM) {
    throw new InvalidInputError(
      `\`margin_mm\` must be a number of millimetres from 0 to ${MAX_MARGIN_MM}; got "${raw}".`,
    );
  }
  return value;
}

function boundedText(name: string, raw: string | undefined, max: number): string | undefined {
  if (raw !== undefined && raw.length > max) {
    throw new InvalidInputError(`\`${name}\` may hold at most ${max} characters; got ${raw.length}.`);
  }
  return raw;
}

/** openapi.yaml `htmlToPdf` `header_template` and `footer_template`, as sent. */
export function parseTemplate(name: string, raw: string | undefined): string | undefined {
  return boundedText(name, raw, MAX_TEMPLATE_LENGTH);
}

/** openapi.yaml `htmlToPdf` `wait_for`: its syntax is Chromium's to judge, when the page is loaded. */
export function parseSelector(raw: string | undefined): string | undefined {
  const selector = boundedText('wait_for', raw, MAX_SELECTOR_LENGTH)?.trim();
  return selector === '' ? undefined : selector;
}

export function htmlToPdfOperation(engine: HtmlPdfEngine): Operation<HtmlToPdfParams, HtmlToPdfResult> {
  return {
    name: 'html_to_pdf',
    async run(inputs, { budget, ...options }, work, outputs) {
      const [html, ...assets] = inputs;
      if (html === undefined) throw new Error('expected the page as the first input');
      const page = { html: labelled(html), assets: assets.map(({ name, path }) => ({ name, path })) };
      const output = await engine.toPdf(page, options, budget, work);
      const filename = htmlPdfName(html.name);
      return {
        filename,
        page_count: output.pageCount,
        paper_size: options.paperSize,
        landscape: options.landscape,
        asset_count: assets.length,
        blocked_urls: output.blocked,
        size: output.size,
        download: await outputs.publish(output.path, filename, output.size),
      };
    },
    resign: (result, fresh) => ({ ...result, download: fresh(result.download) }),
  };
}

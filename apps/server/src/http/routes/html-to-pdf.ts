// POST /api/v1/html-to-pdf (openapi.yaml operation `htmlToPdf`): the page in `html`, what it loads in
// the repeated part `assets[]` (each named by its path), and the print options as form fields
// (operations/html-to-pdf.ts does the work).
import type { UploadLimits } from '../../config.js';
import {
  ASSETS_PART,
  checkAssets,
  HTML_PART,
  type HtmlToPdfParams,
  PAPER_SIZES,
  parseChoice,
  parseMarginMm,
  parseSelector,
  parseTemplate,
  WAIT_UNTIL,
} from '../../operations/index.js';
import { optionalField } from '../upload.js';
import type { OperationRoute } from './operation-route.js';
import { htmlBudgetOf } from './principal.js';

const BOOLEANS = ['true', 'false'] as const;

export const htmlToPdfRoute = (uploadLimits: UploadLimits): OperationRoute => ({
  operation: 'html_to_pdf',
  parts: {
    summary:
      'POST /api/v1/html-to-pdf takes the page in the part `html`, what it loads in the repeated part `assets[]`, and optionally `paper_size`, `landscape`, `margin_mm`, `print_background`, `header_template`, `footer_template`, `javascript`, `wait_until` and `wait_for`',
    files: [HTML_PART, ASSETS_PART],
    fields: [
      'paper_size',
      'landscape',
      'margin_mm',
      'print_background',
      'header_template',
      'footer_template',
      'javascript',
      'wait_until',
      'wait_for',
    ],
  },
  request(upload, principal) {
    const html = upload.files.get(HTML_PART) ?? [];
    const assets = upload.files.get(ASSETS_PART) ?? [];
    checkAssets(html.length, assets);
    const field = (name: string) => optionalField(upload, name);
    const flag = (name: string) => parseChoice(name, field(name), BOOLEANS, 'false') === 'true';
    const params: HtmlToPdfParams = {
      paperSize: parseChoice('paper_size', field('paper_size'), PAPER_SIZES, 'a4'),
      landscape: flag('landscape'),
      marginMm: parseMarginMm(field('margin_mm')),
      printBackground: flag('print_background'),
      headerTemplate: parseTemplate('header_template', field('header_template')),
      footerTemplate: parseTemplate('footer_template', field('footer_template')),
      javascript: flag('javascript'),
      waitUntil: parseChoice('wait_until', field('wait_until'), WAIT_UNTIL, 'load'),
      waitFor: parseSelector(field('wait_for')),
      budget: htmlBudgetOf(principal, uploadLimits),
    };
    return { files: [...html, ...assets], params };
  },
});

// POST /api/v1/office-to-pdf (openapi.yaml operation `officeToPdf`): one document in `file`, the options
// as form fields (operations/office-to-pdf.ts does the work).
import type { UploadLimits } from '../../config.js';
import { type OfficeToPdfParams, PDFA_LEVELS, parseChoice } from '../../operations/index.js';
import { optionalField, singleFile } from '../upload.js';
import type { OperationRoute } from './operation-route.js';
import { officeBudgetOf } from './principal.js';

const BOOLEANS = ['true', 'false'] as const;

export const officeToPdfRoute = (uploadLimits: UploadLimits): OperationRoute => ({
  operation: 'office_to_pdf',
  parts: {
    summary:
      'POST /api/v1/office-to-pdf takes one document in the part `file` and optionally `pages`, `landscape`, `pdfa`, `pdfua` and `bookmarks`',
    files: ['file'],
    fields: ['pages', 'landscape', 'pdfa', 'pdfua', 'bookmarks'],
  },
  request(upload, principal) {
    const file = singleFile(upload, 'file', 'the document to convert');
    const field = (name: string) => optionalField(upload, name);
    const pdfa = field('pdfa');
    const params: OfficeToPdfParams = {
      pages: field('pages'),
      landscape: parseChoice('landscape', field('landscape'), BOOLEANS, 'false') === 'true',
      pdfa: pdfa === undefined ? undefined : parseChoice('pdfa', pdfa, PDFA_LEVELS, 'pdfa-2b'),
      pdfua: parseChoice('pdfua', field('pdfua'), BOOLEANS, 'false') === 'true',
      bookmarks: parseChoice('bookmarks', field('bookmarks'), BOOLEANS, 'true') === 'true',
      budget: officeBudgetOf(principal, uploadLimits),
    };
    return { files: [file], params };
  },
});

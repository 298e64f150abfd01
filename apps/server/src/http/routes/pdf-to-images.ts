// POST /api/v1/pdf-to-images (openapi.yaml operation `pdfToImages`): one PDF in `file`, the pages and
// how to draw them as form fields (operations/pdf-to-images.ts does the work).
import type { UploadLimits } from '../../config.js';
import {
  PAGE_IMAGE_FORMATS,
  PAGES_OUTPUTS,
  type PdfToImagesParams,
  parseChoice,
  renderRequestOf,
} from '../../operations/index.js';
import { optionalField, singleFile } from '../upload.js';
import type { OperationRoute } from './operation-route.js';
import { imageBudgetOf, pageBudgetOf } from './principal.js';

export const pdfToImagesRoute = (uploadLimits: UploadLimits): OperationRoute => ({
  operation: 'pdf_to_images',
  parts: {
    summary:
      'POST /api/v1/pdf-to-images takes one PDF in the part `file` and optionally `pages`, `format`, `quality`, `dpi` or `width`, and `output`',
    files: ['file'],
    fields: ['pages', 'format', 'quality', 'dpi', 'width', 'output'],
  },
  request(upload, principal) {
    const file = singleFile(upload, 'file', 'the PDF whose pages to draw');
    const field = (name: string) => optionalField(upload, name);
    const request = renderRequestOf({
      pages: field('pages'),
      format: parseChoice('format', field('format'), PAGE_IMAGE_FORMATS, 'png'),
      quality: field('quality'),
      dpi: field('dpi'),
      width: field('width'),
    });
    const pages = pageBudgetOf(principal, uploadLimits, 'renderPages');
    const params: PdfToImagesParams = {
      ...request,
      output: parseChoice('output', field('output'), PAGES_OUTPUTS, 'files'),
      budget: {
        maxPages: pages.maxPages,
        maxPixels: imageBudgetOf(principal, uploadLimits).maxPixels,
        holder: pages.holder,
      },
    };
    return { files: [file], params };
  },
});

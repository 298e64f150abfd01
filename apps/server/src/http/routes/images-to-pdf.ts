// POST /api/v1/images-to-pdf (openapi.yaml operation `imagesToPdf`): the images in the repeated part
// `images[]`, in page order, and the layout as form fields (operations/images-to-pdf.ts does the work).
import type { UploadLimits } from '../../config.js';
import {
  checkImageCount,
  FITS,
  IMAGES_PART,
  type ImagesToPdfParams,
  ORIENTATIONS,
  PAGE_SIZES,
  parseChoice,
  parseMargin,
} from '../../operations/index.js';
import { optionalField } from '../upload.js';
import type { OperationRoute } from './operation-route.js';
import { imageBudgetOf } from './principal.js';

export const imagesToPdfRoute = (uploadLimits: UploadLimits): OperationRoute => ({
  operation: 'images_to_pdf',
  parts: {
    summary:
      'POST /api/v1/images-to-pdf takes images in the repeated part `images[]` and optionally `page_size`, `orientation`, `fit` and `margin_mm`',
    files: [IMAGES_PART],
    fields: ['page_size', 'orientation', 'fit', 'margin_mm'],
  },
  request(upload, principal) {
    const files = upload.files.get(IMAGES_PART) ?? [];
    checkImageCount(files.length);
    const field = (name: string) => optionalField(upload, name);
    const params: ImagesToPdfParams = {
      pageSize: parseChoice('page_size', field('page_size'), PAGE_SIZES, 'image'),
      orientation: parseChoice('orientation', field('orientation'), ORIENTATIONS, 'auto'),
      fit: parseChoice('fit', field('fit'), FITS, 'contain'),
      marginMm: parseMargin(field('margin_mm')),
      budget: imageBudgetOf(principal, uploadLimits),
    };
    return { files, params };
  },
});

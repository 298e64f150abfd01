// Images to PDF (openapi.yaml operation `imagesToPdf`): the uploaded images in upload order, one a page,
// laid out as the params say. The engine judges every image and the plan's budgets before any work, and
// reports progress in images.
import type { ImagesToPdfResult, PageSize } from '@pdn/api-types';
import type { ImageBudget, ImagesPdfEngine, PageLayout } from '../engines/images-pdf/index.js';
import type { ImageFit, PaperOrientation } from '../engines/images-pdf/types.js';
import type { InputFile } from '../engines/types.js';
import { InvalidInputError } from '../errors.js';
import { imagesPdfName } from './output-names.js';
import type { Operation, OperationInput } from './types.js';

export const IMAGES_PART = 'images[]';
export const PAGE_SIZES: readonly PageSize[] = ['image', 'a3', 'a4', 'a5', 'letter', 'legal'];
export const ORIENTATIONS: readonly PaperOrientation[] = ['auto', 'portrait', 'landscape'];
export const FITS: readonly ImageFit[] = ['contain', 'cover'];
/** openapi.yaml `imagesToPdf` `margin_mm`: maximum. Half of A5's short side is 74 mm: room is always left. */
const MAX_MARGIN_MM = 50;
/** openapi.yaml `imagesToPdf` `images[]`: maxItems, the largest plan's budget. */
const MAX_FILES = 500;

export interface ImagesToPdfParams extends PageLayout {
  budget: ImageBudget;
}

/** Refuses no image or more files than any plan takes, before anything is stored. */
export function checkImageCount(count: number): void {
  if (count < 1 || count > MAX_FILES) {
    throw new InvalidInputError(
      `Images to PDF takes 1 to ${MAX_FILES} images in the repeated part \`${IMAGES_PART}\`; got ${count}.`,
    );
  }
}

/** openapi.yaml `imagesToPdf` `margin_mm`: 0 when absent. */
export function parseMargin(raw: string | undefined): number {
  if (raw === undefined) return 0;
  const value = Number(raw.trim());
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || value > MAX_MARGIN_MM) {
    throw new InvalidInputError(
      `\`margin_mm\` must be a number of millimetres from 0 to ${MAX_MARGIN_MM}; got "${raw}".`,
    );
  }
  return value;
}

function labelledAt(input: OperationInput, index: number): InputFile {
  return {
    path: input.path,
    label: input.name === '' ? `image ${index + 1}` : `image ${index + 1} ("${input.name}")`,
  };
}

export function imagesToPdfOperation(
  engine: ImagesPdfEngine,
): Operation<ImagesToPdfParams, ImagesToPdfResult> {
  return {
    name: 'images_to_pdf',
    async run(inputs, { budget, ...layout }, work, outputs) {
      const output = await engine.toPdf(inputs.map(labelledAt), layout, budget, work);
      const filename = imagesPdfName(inputs[0]?.name ?? '');
      return {
        filename,
        page_count: output.pageCount,
        input_count: inputs.length,
        page_size: layout.pageSize,
        size: output.size,
        download: await outputs.publish(output.path, filename, output.size),
      };
    },
    resign: (result, fresh) => ({ ...result, download: fresh(result.download) }),
  };
}

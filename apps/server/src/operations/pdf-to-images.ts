// PDF to images (openapi.yaml operation `pdfToImages`): one PDF's pages drawn as PNG or JPEG, each
// image its own download or all of them in one ZIP archive. The engine judges the PDF, the pages and
// the plan's budgets before drawing anything.
import type { PageImage, PageImageFormat, PdfToImagesResult } from '@pdn/api-types';
import type { PdfImagesEngine, RenderBudget, RenderRequest } from '../engines/pdf-images/index.js';
import { writeZip } from '../engines/pdf-images/zip-archive.js';
import { InvalidInputError } from '../errors.js';
import { pageImageName, pagesZipName } from './output-names.js';
import { publishEach } from './publish-each.js';
import { labelled, type Operation, onlyInput } from './types.js';

export type PagesOutput = 'files' | 'zip';

export const PAGE_IMAGE_FORMATS: readonly PageImageFormat[] = ['png', 'jpeg'];
export const PAGES_OUTPUTS: readonly PagesOutput[] = ['files', 'zip'];

export interface PdfToImagesParams extends RenderRequest {
  output: PagesOutput;
  budget: RenderBudget;
}

/** openapi.yaml `pdfToImages` integer fields: absent, or a whole number from `min` to `max`. */
export function parseWhole(
  name: string,
  raw: string | undefined,
  min: number,
  max: number,
): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max)
    throw new InvalidInputError(`\`${name}\` must be a whole number from ${min} to ${max}; got "${raw}".`);
  return value;
}

/**
 * The form's `format`, `quality`, `dpi` and `width` as a render request (openapi.yaml defaults). Forms
 * send every field's default (the "Try it out" of /docs does): a quality beside a PNG, or a dpi beside a
 * width, is ignored rather than refused.
 */
export function renderRequestOf(fields: {
  pages: string | undefined;
  format: PageImageFormat;
  quality: string | undefined;
  dpi: string | undefined;
  width: string | undefined;
}): RenderRequest {
  const quality = parseWhole('quality', fields.quality, 1, 100);
  const dpi = parseWhole('dpi', fields.dpi, 10, 1200);
  const width = parseWhole('width', fields.width, 16, 10_000);
  return {
    pages: fields.pages,
    format: fields.format,
    quality: quality ?? 85,
    scale: width === undefined ? { dpi: dpi ?? 150 } : { width },
  };
}

export function pdfToImagesOperation(
  engine: PdfImagesEngine,
): Operation<PdfToImagesParams, PdfToImagesResult> {
  return {
    name: 'pdf_to_images',
    async run(inputs, { output, budget, ...request }, work, outputs) {
      const file = onlyInput(inputs);
      const images = await engine.render(labelled(file), request, budget, work);
      const extension = request.format === 'png' ? 'png' : 'jpg';
      const pages: PageImage[] = images.map((image) => ({
        page: image.page,
        width: image.width,
        height: image.height,
        filename: pageImageName(file.name, image.page, extension),
        size: image.size,
      }));
      const answer = { format: request.format, output, page_count: pages.length };
      if (output === 'zip') {
        const filename = pagesZipName(file.name);
        const path = `${work.workDir}/${filename}`;
        const entries = images.map((image, index) => ({
          path: image.path,
          name: pages[index]?.filename ?? '',
        }));
        const size = await writeZip(path, entries);
        return { ...answer, pages, filename, size, download: await outputs.publish(path, filename) };
      }
      const downloads = await publishEach(
        outputs,
        images.map((image, index) => ({ path: image.path, filename: pages[index]?.filename ?? '' })),
      );
      const published = pages.map((page, index) => {
        const download = downloads[index];
        if (download === undefined) throw new Error(`page ${page.page} was not published`);
        return { ...page, download };
      });
      return { ...answer, pages: published };
    },
    resign: (result, fresh) => ({
      ...result,
      pages: result.pages.map((page) =>
        page.download === undefined ? page : { ...page, download: fresh(page.download) },
      ),
      ...(result.download === undefined ? {} : { download: fresh(result.download) }),
    }),
  };
}

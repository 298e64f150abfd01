// The uploads judged before anything decodes them, by the OCR path's own checks (../ocr/image-header.ts:
// format by content, declared sizes, sides, TIFF pages, ambiguous headers, the pixel cap) and, for JPEG
// 2000, which OCR does not read, by jp2-header.ts under the same rules. Then the plan's budgets: images
// in all (a TIFF's pages each) and pixels per image, so an over-budget request is refused before any work.
import { open, readFile } from 'node:fs/promises';
import { InvalidInputError } from '../../errors.js';
import {
  ACCEPTED_FORMATS,
  checkDeclaredSizes,
  checkPixelCap,
  type Dimensions,
  readImageHeader,
} from '../ocr/image-header.js';
import type { InputFile } from '../types.js';
import { isJp2, Jp2Error, readJp2Header } from './jp2-header.js';
import type { ImageBudget, PdfImageFormat } from './types.js';

export interface JudgedImage {
  input: InputFile;
  format: PdfImageFormat;
  pages: Dimensions[];
}

const ACCEPTED = `${ACCEPTED_FORMATS.replace(' or ', ', ')} or JPEG 2000`;

async function startsAsJp2(path: string): Promise<boolean> {
  const file = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(12), 0, 12, 0);
    return isJp2(buffer.subarray(0, bytesRead));
  } finally {
    await file.close();
  }
}

async function judgeOne(input: InputFile): Promise<JudgedImage> {
  if (!(await startsAsJp2(input.path))) {
    const header = await readImageHeader(input, ACCEPTED);
    return { input, format: header.format, pages: header.pages };
  }
  try {
    // The header boxes come before the codestream, but a JP2 may put them anywhere: read it whole,
    // as the upload limit already bounds it and it is embedded whole anyway.
    const { width, height } = readJp2Header(await readFile(input.path));
    const pages = [{ width, height }];
    checkDeclaredSizes(pages, input.label);
    return { input, format: 'jp2', pages };
  } catch (error) {
    if (!(error instanceof Jp2Error)) throw error;
    throw new InvalidInputError(
      error.ambiguous
        ? `${input.label} is refused as ambiguous: ${error.message}`
        : `${input.label} is not a readable JPEG 2000 image: ${error.message}`,
    );
  }
}

/**
 * The pixels one image may hold: the plan's, or the server's own cap (PDN_MAX_IMAGE_PIXELS) when lower,
 * and who allows it, for messages ("the Free plan allows", "this server reads").
 */
export function pixelCapOf(
  budget: { maxPixels: number; holder: string },
  serverMaxPixels: number,
): { maxPixels: number; holder: string } {
  return budget.maxPixels <= serverMaxPixels
    ? { maxPixels: budget.maxPixels, holder: `${budget.holder} allows` }
    : { maxPixels: serverMaxPixels, holder: 'this server reads' };
}

/**
 * Every input's format and pages, refused (InvalidInputError naming the file or the budget) when a
 * header is bad or the images are over `budget` or the server's own pixel cap.
 */
export async function judgeImages(
  inputs: readonly InputFile[],
  budget: ImageBudget,
  serverMaxPixels: number,
): Promise<JudgedImage[]> {
  const judged: JudgedImage[] = [];
  const { maxPixels, holder } = pixelCapOf(budget, serverMaxPixels);
  for (const input of inputs) {
    const image = await judgeOne(input);
    checkPixelCap(image.pages, maxPixels, input.label, holder);
    judged.push(image);
  }
  const images = judged.reduce((sum, image) => sum + image.pages.length, 0);
  if (images > budget.maxImages) {
    const held = inputs.length === 1 ? 'The image holds' : `The ${inputs.length} images hold`;
    throw new InvalidInputError(
      `${held} ${images} pages in all; ${budget.holder} allows at most ${budget.maxImages} images per request. ` +
        'Send fewer images per request.',
    );
  }
  return judged;
}

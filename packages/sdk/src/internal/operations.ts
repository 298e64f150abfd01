// The operations as requests (openapi.yaml: compress, merge, split, ocr, ocrPdf, imagesToPdf, pdfToImages,
// htmlToPdf, officeToPdf): what the SDK checks
// before sending and the multipart form. The synchronous
// methods and `pdn.jobs.submit` send the same requests, so each is described once, here.
import type {
  CompressionLevel,
  OcrPdfMode,
  OcrPdfOutputType,
  PageImageFormat,
  PageSize,
  PaperSize,
  PdfaLevel,
} from '../api-types/index.js';
import { InvalidInputError } from '../errors.js';
import type { Uploadable } from '../uploads.js';
import type { CallOptions, FormField } from './request.js';
import { toUploadPart } from './uploads.js';

export interface CompressParams extends CallOptions {
  file: Uploadable;
  /** `medium` on the server when omitted. */
  level?: CompressionLevel | undefined;
}

export interface MergeParams extends CallOptions {
  /** 2 to 20 PDFs, merged in this order. */
  files: Uploadable[];
}

export interface SplitParams extends CallOptions {
  file: Uploadable;
  /** `'1-3,4,5-9'` or `['1-3', '4', '5-9']`: one part per item, checked by the server. */
  ranges: string | string[];
}

export interface OcrParams extends CallOptions {
  image: Uploadable;
  /** An OCR language code such as `deu`, or several joined by `+`. `eng` on the server when omitted. */
  language?: string | undefined;
  /** `words` adds every recognised word with its page, box and confidence (`words`); `text` when omitted. */
  detail?: OcrDetail | undefined;
}

export type OcrDetail = 'text' | 'words';

export interface OcrPdfParams extends CallOptions {
  /** A PDF, or one image as `ocr` takes it (a multi-page TIFF is a document of its pages). */
  file: Uploadable;
  /** As for `ocr`: a code such as `deu`, or several joined by `+`. `eng` on the server when omitted. */
  language?: string | undefined;
  /** Pages that already have text: `skip` them (the server's default), `redo` an earlier OCR layer, `force` OCR of every page. */
  mode?: OcrPdfMode | undefined;
  /** Straighten pages scanned at an angle (re-encodes those pages). Needs OCRmyPDF on the server. */
  deskew?: boolean | undefined;
  /** Detect each page's orientation and turn it upright. */
  rotate?: boolean | undefined;
  /** Pages to read, as split's ranges: `'1-3,7'` or `['1-3', '7']`; all when omitted. */
  pages?: string | string[] | undefined;
  /** `pdf` (the server's default) or `pdfa` (PDF/A-2b). */
  output?: OcrPdfOutputType | undefined;
}

export interface OfficeToPdfParams extends CallOptions {
  /** A Word, Excel, PowerPoint, OpenDocument or RTF document, recognised by the server from its bytes. */
  file: Uploadable;
  /** Pages of the PDF to write, as split's ranges: `'1-3,7'` or `['1-3', '7']`; all when omitted. */
  pages?: string | string[] | undefined;
  /** Turn the pages of text documents and sheets to landscape. */
  landscape?: boolean | undefined;
  /** Write PDF/A at this level; a plain PDF when omitted. */
  pdfa?: PdfaLevel | undefined;
  /** Write a tagged PDF meeting PDF/UA. */
  pdfua?: boolean | undefined;
  /** Keep headings as the PDF's bookmarks (the server's default); `false` leaves them out. */
  bookmarks?: boolean | undefined;
}

export interface ImagesToPdfParams extends CallOptions {
  /** The images (PNG, JPEG, TIFF, WebP, BMP, JPEG 2000), one a page in this order; a TIFF's pages each. */
  images: Uploadable[];
  /** `image` (the server's default): each page the image's size at its resolution; else that paper. */
  pageSize?: PageSize | undefined;
  /** With a paper size: `auto` (the server's default) turns each page as its image is. */
  orientation?: 'auto' | 'portrait' | 'landscape' | undefined;
  /** With a paper size: `contain` (the server's default) shows all of the image, `cover` fills the page. */
  fit?: 'contain' | 'cover' | undefined;
  /** White space around each image, 0 to 50 millimetres; 0 on the server when omitted. */
  marginMm?: number | undefined;
}

export interface PdfToImagesParams extends CallOptions {
  file: Uploadable;
  /** Pages to draw, as split's ranges: `'1-3,7'` or `['1-3', '7']`; all when omitted. */
  pages?: string | string[] | undefined;
  /** `png` (the server's default, lossless) or `jpeg`. */
  format?: PageImageFormat | undefined;
  /** JPEG quality, 1 to 100 (85 on the server when omitted). */
  quality?: number | undefined;
  /** Pixels per inch, 10 to 1200 (150 on the server when omitted). */
  dpi?: number | undefined;
  /** Each image this many pixels wide (16 to 10000), its height in proportion: a thumbnail. */
  width?: number | undefined;
  /** `files` (the server's default): a download per page; `zip`: one archive of them all. */
  output?: 'files' | 'zip' | undefined;
}

export interface HtmlToPdfParams extends CallOptions {
  /** The page (its `<meta charset>` honoured, UTF-8 otherwise). */
  html: Uploadable;
  /**
   * What the page loads, each under the path the page uses for it, relative to the page:
   * `{ 'css/site.css': fromPath('site/css/site.css') }`. At most 50; the server refuses everything else.
   */
  assets?: Readonly<Record<string, Uploadable>> | undefined;
  /** `a4` on the server when omitted. */
  paperSize?: PaperSize | undefined;
  landscape?: boolean | undefined;
  /** The margin on every side, 0 to 50 millimetres; 10 on the server when omitted. */
  marginMm?: number | undefined;
  /** Print background colours and images (left out by default, as browsers print). */
  printBackground?: boolean | undefined;
  /** Chromium header and footer templates (`pageNumber`, `totalPages`, `title`, `date`, `url` classes). */
  headerTemplate?: string | undefined;
  footerTemplate?: string | undefined;
  /** Run the page's scripts, within the plan's seconds per request; off when omitted. */
  javascript?: boolean | undefined;
  /** `load` (the server's default), or `network_idle` for pages whose scripts load more. */
  waitUntil?: 'load' | 'network_idle' | undefined;
  /** A CSS selector the page must match before it is printed. */
  waitFor?: string | undefined;
}

/** What each operation takes, by its name in the API (openapi.yaml `JobOperation`). */
export interface OperationParams {
  compress: CompressParams;
  merge: MergeParams;
  split: SplitParams;
  ocr: OcrParams;
  ocr_pdf: OcrPdfParams;
  office_to_pdf: OfficeToPdfParams;
  images_to_pdf: ImagesToPdfParams;
  pdf_to_images: PdfToImagesParams;
  html_to_pdf: HtmlToPdfParams;
}

export type Operation = keyof OperationParams;

export interface OperationRequest {
  url: string;
  /** Builds the form when the call runs, so a bad upload rejects the call rather than throwing. */
  form: () => FormField[];
  options: CallOptions;
}

const levels: readonly CompressionLevel[] = ['low', 'medium', 'high'];
const details: readonly OcrDetail[] = ['text', 'words'];
const modes: readonly OcrPdfMode[] = ['skip', 'redo', 'force'];
const outputTypes: readonly OcrPdfOutputType[] = ['pdf', 'pdfa'];
const pdfaLevels: readonly PdfaLevel[] = ['pdfa-1b', 'pdfa-2b', 'pdfa-3b'];
const pageSizes: readonly PageSize[] = ['image', 'a3', 'a4', 'a5', 'letter', 'legal'];
const orientations = ['auto', 'portrait', 'landscape'] as const;
const fits = ['contain', 'cover'] as const;
const imageFormats: readonly PageImageFormat[] = ['png', 'jpeg'];
const pagesOutputs = ['files', 'zip'] as const;
const paperSizes: readonly PaperSize[] = ['a4', 'letter', 'legal', 'a3', 'a5', 'tabloid'];
const waitUntils = ['load', 'network_idle'] as const;
const pdf = 'application/pdf';

/** Checks `params` (throwing InvalidInputError) and describes the request that runs `operation`. */
export function operationRequest<O extends Operation>(
  operation: O,
  params: OperationParams[O],
): OperationRequest {
  if (typeof operation !== 'string' || !Object.hasOwn(describers, operation)) {
    throw new InvalidInputError(
      `operation must be one of ${Object.keys(describers).join(', ')}, got ${JSON.stringify(operation)}`,
    );
  }
  return (describers[operation] as (params: OperationParams[O]) => OperationRequest)(params);
}

const describers: { [O in Operation]: (params: OperationParams[O]) => OperationRequest } = {
  compress({ file, level, ...options }) {
    checkChoice('level', level, levels);
    return {
      url: '/api/v1/compress',
      options,
      form: () => [
        { name: 'file', part: toUploadPart(file, { field: 'file', filename: 'document.pdf', type: pdf }) },
        ...(level === undefined ? [] : [{ name: 'level', value: level }]),
      ],
    };
  },

  merge({ files, ...options }) {
    if (!Array.isArray(files) || files.length < 2 || files.length > 20) {
      throw new InvalidInputError(
        `merge takes 2 to 20 files, got ${Array.isArray(files) ? files.length : 'no list'}`,
      );
    }
    return {
      url: '/api/v1/merge',
      options,
      form: () =>
        files.map((file, i) => ({
          name: 'files[]',
          part: toUploadPart(file, { field: `files[${i}]`, filename: `document-${i + 1}.pdf`, type: pdf }),
        })),
    };
  },

  split({ file, ranges, ...options }) {
    const items = rangeItems('ranges', ranges, 'is required');
    return {
      url: '/api/v1/split',
      options,
      form: () => [
        { name: 'file', part: toUploadPart(file, { field: 'file', filename: 'document.pdf', type: pdf }) },
        { name: 'ranges', value: items.join(',') },
      ],
    };
  },

  ocr({ image, language, detail, ...options }) {
    checkLanguage(language);
    checkChoice('detail', detail, details);
    return {
      url: '/api/v1/ocr',
      options,
      form: () => [
        {
          name: 'image',
          part: toUploadPart(image, { field: 'image', filename: 'image', type: 'application/octet-stream' }),
        },
        ...optionalFields({ language: language?.trim(), detail }),
      ],
    };
  },

  ocr_pdf({ file, language, mode, deskew, rotate, pages, output, ...options }) {
    checkLanguage(language);
    checkChoice('mode', mode, modes);
    checkChoice('output', output, outputTypes);
    for (const [name, value] of Object.entries({ deskew, rotate })) {
      if (value !== undefined && typeof value !== 'boolean') {
        throw new InvalidInputError(`${name} must be true or false, got ${JSON.stringify(value)}`);
      }
    }
    const items = pages === undefined ? undefined : rangeItems('pages', pages, 'when given must be');
    return {
      url: '/api/v1/ocr/pdf',
      options,
      form: () => [
        // A PDF or an image, told apart by the server from its bytes: the part claims neither.
        {
          name: 'file',
          part: toUploadPart(file, { field: 'file', filename: 'document', type: 'application/octet-stream' }),
        },
        ...optionalFields({
          language: language?.trim(),
          mode,
          deskew: deskew === undefined ? undefined : String(deskew),
          rotate: rotate === undefined ? undefined : String(rotate),
          pages: items?.join(','),
          output,
        }),
      ],
    };
  },

  office_to_pdf({ file, pages, landscape, pdfa, pdfua, bookmarks, ...options }) {
    checkChoice('pdfa', pdfa, pdfaLevels);
    for (const [name, value] of Object.entries({ landscape, pdfua, bookmarks })) {
      if (value !== undefined && typeof value !== 'boolean') {
        throw new InvalidInputError(`${name} must be true or false, got ${JSON.stringify(value)}`);
      }
    }
    const items = pages === undefined ? undefined : rangeItems('pages', pages, 'when given must be');
    const flag = (value: boolean | undefined) => (value === undefined ? undefined : String(value));
    return {
      url: '/api/v1/office-to-pdf',
      options,
      form: () => [
        // The server tells the format from the bytes: the part claims none of its own.
        {
          name: 'file',
          part: toUploadPart(file, { field: 'file', filename: 'document', type: 'application/octet-stream' }),
        },
        ...optionalFields({
          pages: items?.join(','),
          landscape: flag(landscape),
          pdfa,
          pdfua: flag(pdfua),
          bookmarks: flag(bookmarks),
        }),
      ],
    };
  },

  images_to_pdf({ images, pageSize, orientation, fit, marginMm, ...options }) {
    // The plan bounds the images (the server says by how much); 1 to 500 is the contract's.
    if (!Array.isArray(images) || images.length < 1 || images.length > 500) {
      throw new InvalidInputError(
        `imagesToPdf takes 1 to 500 images, got ${Array.isArray(images) ? images.length : 'no list'}`,
      );
    }
    checkChoice('pageSize', pageSize, pageSizes);
    checkChoice('orientation', orientation, orientations);
    checkChoice('fit', fit, fits);
    if (marginMm !== undefined && (typeof marginMm !== 'number' || !(marginMm >= 0 && marginMm <= 50))) {
      throw new InvalidInputError(`marginMm must be a number from 0 to 50, got ${JSON.stringify(marginMm)}`);
    }
    return {
      url: '/api/v1/images-to-pdf',
      options,
      form: () => [
        // Images are told apart by the server from their bytes: the parts claim no type.
        ...images.map((image, i) => ({
          name: 'images[]',
          part: toUploadPart(image, {
            field: `images[${i}]`,
            filename: `image-${i + 1}`,
            type: 'application/octet-stream',
          }),
        })),
        ...optionalFields({
          page_size: pageSize,
          orientation,
          fit,
          margin_mm: marginMm === undefined ? undefined : String(marginMm),
        }),
      ],
    };
  },

  pdf_to_images({ file, pages, format, quality, dpi, width, output, ...options }) {
    checkChoice('format', format, imageFormats);
    checkChoice('output', output, pagesOutputs);
    for (const [name, value, min, max] of [
      ['quality', quality, 1, 100],
      ['dpi', dpi, 10, 1200],
      ['width', width, 16, 10_000],
    ] as const) {
      if (value !== undefined && !(Number.isInteger(value) && value >= min && value <= max)) {
        throw new InvalidInputError(
          `${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`,
        );
      }
    }
    const items = pages === undefined ? undefined : rangeItems('pages', pages, 'when given must be');
    return {
      url: '/api/v1/pdf-to-images',
      options,
      form: () => [
        { name: 'file', part: toUploadPart(file, { field: 'file', filename: 'document.pdf', type: pdf }) },
        ...optionalFields({
          pages: items?.join(','),
          format,
          quality: quality === undefined ? undefined : String(quality),
          dpi: dpi === undefined ? undefined : String(dpi),
          width: width === undefined ? undefined : String(width),
          output,
        }),
      ],
    };
  },

  html_to_pdf({ html, assets = {}, paperSize, landscape, marginMm, printBackground, ...rest }) {
    const { headerTemplate, footerTemplate, javascript, waitUntil, waitFor, ...options } = rest;
    // The asset names' syntax and the plan's budgets are the server's to judge; the count is the contract's.
    const named = Object.entries(assets);
    if (named.length > 50)
      throw new InvalidInputError(`htmlToPdf takes at most 50 assets, got ${named.length}`);
    checkChoice('paperSize', paperSize, paperSizes);
    checkChoice('waitUntil', waitUntil, waitUntils);
    if (marginMm !== undefined && (typeof marginMm !== 'number' || !(marginMm >= 0 && marginMm <= 50))) {
      throw new InvalidInputError(`marginMm must be a number from 0 to 50, got ${JSON.stringify(marginMm)}`);
    }
    const flag = (value: boolean | undefined) => (value === undefined ? undefined : String(value));
    return {
      url: '/api/v1/html-to-pdf',
      options,
      form: () => [
        {
          name: 'html',
          part: toUploadPart(html, { field: 'html', filename: 'index.html', type: 'text/html' }),
        },
        // The part's file name is the asset's path on the page, whatever the upload was called.
        ...named.map(([name, asset]) => ({
          name: 'assets[]',
          part: {
            ...toUploadPart(asset, {
              field: `assets[${name}]`,
              filename: name,
              type: 'application/octet-stream',
            }),
            filename: name,
          },
        })),
        ...optionalFields({
          paper_size: paperSize,
          landscape: flag(landscape),
          margin_mm: marginMm === undefined ? undefined : String(marginMm),
          print_background: flag(printBackground),
          header_template: headerTemplate,
          footer_template: footerTemplate,
          javascript: flag(javascript),
          wait_until: waitUntil,
          wait_for: waitFor,
        }),
      ],
    };
  },
};

/** A field the contract restricts to a list of values: absent, or one of them. */
function checkChoice<T extends string>(name: string, value: T | undefined, choices: readonly T[]): void {
  if (value !== undefined && !choices.includes(value)) {
    throw new InvalidInputError(`${name} must be one of ${choices.join(', ')}, got ${JSON.stringify(value)}`);
  }
}

function checkLanguage(language: string | undefined): void {
  if (language !== undefined && (typeof language !== 'string' || language.trim() === '')) {
    throw new InvalidInputError('language must be a non-empty language code such as "deu"');
  }
}

/**
 * Page ranges as one string or a list. Only presence is checked here; the syntax and the page
 * numbers are the server's to judge (STYLE.md principle 13: one boundary owns page ranges, and it
 * knows the page count).
 */
function rangeItems(name: string, ranges: string | string[], required: string): string[] {
  const items = typeof ranges === 'string' ? [ranges] : Array.isArray(ranges) ? ranges : [];
  if (items.length === 0 || items.some((item) => typeof item !== 'string' || item.trim() === '')) {
    throw new InvalidInputError(
      `${name} ${required}: a string such as "1-3,5" or a list such as ["1-3", "5"] with no empty item`,
    );
  }
  return items;
}

/** The text fields that were given, in order; an absent one is not sent (the server's default applies). */
function optionalFields(fields: Record<string, string | undefined>): FormField[] {
  return Object.entries(fields).flatMap(([name, value]) => (value === undefined ? [] : [{ name, value }]));
}

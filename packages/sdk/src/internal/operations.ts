// The four operations as requests (openapi.yaml: compress, merge, split, ocr): what the SDK checks
// before sending (issue #4 "Validation before sending") and the multipart form. The synchronous
// methods and `pdn.jobs.submit` send the same requests, so each is described once, here.
import type { CompressionLevel } from '../api-types/index.js';
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
}

/** What each operation takes, by its name in the API (openapi.yaml `JobOperation`). */
export interface OperationParams {
  compress: CompressParams;
  merge: MergeParams;
  split: SplitParams;
  ocr: OcrParams;
}

export type Operation = keyof OperationParams;

export interface OperationRequest {
  url: string;
  /** Builds the form when the call runs, so a bad upload rejects the call rather than throwing. */
  form: () => FormField[];
  options: CallOptions;
}

const levels: readonly CompressionLevel[] = ['low', 'medium', 'high'];
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
    if (level !== undefined && !levels.includes(level)) {
      throw new InvalidInputError(`level must be one of ${levels.join(', ')}, got ${JSON.stringify(level)}`);
    }
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
    const items = typeof ranges === 'string' ? [ranges] : Array.isArray(ranges) ? ranges : [];
    // Only presence is checked here; the syntax and the page numbers are the server's to judge
    // (STYLE.md principle 13: one boundary owns page ranges, and it knows the page count).
    if (items.length === 0 || items.some((item) => typeof item !== 'string' || item.trim() === '')) {
      throw new InvalidInputError(
        'ranges is required: a string such as "1-3,5" or a list such as ["1-3", "5"] with no empty item',
      );
    }
    return {
      url: '/api/v1/split',
      options,
      form: () => [
        { name: 'file', part: toUploadPart(file, { field: 'file', filename: 'document.pdf', type: pdf }) },
        { name: 'ranges', value: items.join(',') },
      ],
    };
  },

  ocr({ image, language, ...options }) {
    if (language !== undefined && (typeof language !== 'string' || language.trim() === '')) {
      throw new InvalidInputError('language must be a non-empty language code such as "deu"');
    }
    return {
      url: '/api/v1/ocr',
      options,
      form: () => [
        {
          name: 'image',
          part: toUploadPart(image, { field: 'image', filename: 'image', type: 'application/octet-stream' }),
        },
        ...(language === undefined ? [] : [{ name: 'language', value: language.trim() }]),
      ],
    };
  },
};

// OCR (openapi.yaml operation `ocr`): one image and a `language`, `eng` by default. The
// engine checks the image's bytes, its pixel count and the language codes, and answers the set as
// it read it (sorted, each code once).
import type { OcrResult } from '@pdn/api-types';
import type { OcrEngine } from '../engines/types.js';
import { labelled, type Operation, onlyInput, parseChoice } from './types.js';

/** openapi.yaml `ocr` `language` default; GET /api/v1/languages reports it too. */
export const DEFAULT_LANGUAGE = 'eng';

export type OcrDetail = 'text' | 'words';

export interface OcrParams {
  language: string;
  /** openapi.yaml `ocr` `detail`: `words` adds each word's box and confidence. */
  detail: OcrDetail;
}

const DETAILS: readonly OcrDetail[] = ['text', 'words'];

/** openapi.yaml `ocr` `detail`: `text` when omitted. */
export function parseDetail(raw: string | undefined): OcrDetail {
  return parseChoice('detail', raw, DETAILS, 'text');
}

export function ocrOperation(engine: OcrEngine): Operation<OcrParams, OcrResult> {
  return {
    name: 'ocr',
    async run(inputs, { language, detail }, work) {
      const result = await engine.recognize(labelled(onlyInput(inputs)), language, work);
      const answer: OcrResult = {
        text: result.text,
        language: result.language,
        confidence: result.confidence,
      };
      // The default answer stays exactly as the spec shows it.
      return detail === 'words' ? { ...answer, words: result.words } : answer;
    },
    // Text only: nothing to sign.
    resign: (result) => result,
  };
}

// OCR (openapi.yaml operation `ocr`; issue #3): one image and a `language`, `eng` by default. The
// engine checks the image's bytes, its pixel count and the language codes, and answers the set as
// it read it (sorted, each code once).
import type { OcrResult } from '@pdn/api-types';
import type { OcrEngine } from '../engines/types.js';
import { labelled, type Operation, onlyInput } from './types.js';

/** openapi.yaml `ocr` `language` default; GET /api/v1/languages reports it too. */
export const DEFAULT_LANGUAGE = 'eng';

export interface OcrParams {
  language: string;
}

export function ocrOperation(engine: OcrEngine): Operation<OcrParams, OcrResult> {
  return {
    name: 'ocr',
    async run(inputs, { language }, work) {
      const result = await engine.recognize(labelled(onlyInput(inputs)), language, work);
      return { text: result.text, language: result.language, confidence: result.confidence };
    },
    // Text only: nothing to sign.
    resign: (result) => result,
  };
}

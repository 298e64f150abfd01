// Words with their boxes out of tesseract's TSV (the native binary's `tessedit_create_tsv` and
// tesseract.js's `tsv` output alike), for `POST /api/v1/ocr` with `detail=words` (openapi.yaml OcrWord).
// Columns: level page_num block_num par_num line_num word_num left top width height conf text; a word is
// level 5 with text.
import type { OcrWord } from '@pdn/api-types';

export type { OcrWord };

/** The words of `tsv` in reading order; `page` overrides the TSV's page number (tesseract.js reads one page at a time). */
export function wordsOfTsv(tsv: string, page?: number): OcrWord[] {
  const words: OcrWord[] = [];
  for (const line of tsv.split('\n')) {
    const columns = line.split('\t');
    const text = (columns[11] ?? '').trim();
    if (columns[0] !== '5' || text === '') continue;
    const [left, top, width, height] = columns.slice(6, 10).map(Number);
    words.push({
      text,
      confidence: Math.round(Math.min(100, Math.max(0, Number(columns[10]))) * 100) / 100,
      page: page ?? Math.max(1, Number(columns[1])),
      left: left ?? 0,
      top: top ?? 0,
      width: width ?? 0,
      height: height ?? 0,
    });
  }
  return words;
}

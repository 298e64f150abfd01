// What every API result carries besides its `data`: the request id and the rate-limit state
// ("Rate-limit headers are exposed on every result").
import type {
  AccountResult as AccountData,
  CompressResult as CompressData,
  HtmlToPdfResult as HtmlToPdfData,
  ImagesToPdfResult as ImagesToPdfData,
  LanguagesResult as LanguagesData,
  MergeResult as MergeData,
  OcrResult as OcrData,
  OcrPdfResult as OcrPdfData,
  OcrWord,
  OfficeToPdfResult as OfficeToPdfData,
  PdfToImagesResult as PdfToImagesData,
  RevokedKey as RevokedKeyData,
  SplitResult as SplitData,
} from './api-types/index.js';

/** The `X-RateLimit-*` headers of a response (openapi.yaml, "Rate limits"). */
export interface RateLimitInfo {
  /** Hourly cap of the plan; `null` on Enterprise, whose headers say `unlimited`. */
  limit: number | null;
  /** Calls left in the rolling window; `null` when unlimited. */
  remaining: number | null;
  /** When the oldest call leaves the window, freeing a slot (now, when nothing is to wait for). */
  reset: Date;
}

/**
 * Attached to every result as non-enumerable properties, so `JSON.stringify(result)` prints the
 * server's `data` exactly while `result.requestId` and `result.rateLimit` still work.
 */
export interface WithMeta {
  readonly requestId: string;
  /** `undefined` when the response carried no rate-limit headers. */
  readonly rateLimit: RateLimitInfo | undefined;
}

export type CompressResult = CompressData & WithMeta;
export type MergeResult = MergeData & WithMeta;
export type SplitResult = SplitData & WithMeta;
export type OcrResult = OcrData & WithMeta;
/** What `ocr` answers with `detail: 'words'`: `words` is then always there. */
export type OcrWordsResult = OcrResult & { words: OcrWord[] };
export type OcrPdfResult = OcrPdfData & WithMeta;
export type OfficeToPdfResult = OfficeToPdfData & WithMeta;
export type ImagesToPdfResult = ImagesToPdfData & WithMeta;
export type PdfToImagesResult = PdfToImagesData & WithMeta;
export type HtmlToPdfResult = HtmlToPdfData & WithMeta;
export type LanguagesResult = LanguagesData & WithMeta;
export type AccountResult = AccountData & WithMeta;
export type RevokedKeyResult = RevokedKeyData & WithMeta;

/** The result of each operation, by its name in the API: what the call answers, or its job's `result`. */
export interface OperationResults {
  compress: CompressResult;
  merge: MergeResult;
  split: SplitResult;
  ocr: OcrResult;
  ocr_pdf: OcrPdfResult;
  office_to_pdf: OfficeToPdfResult;
  images_to_pdf: ImagesToPdfResult;
  pdf_to_images: PdfToImagesResult;
  html_to_pdf: HtmlToPdfResult;
}

// Named aliases over the generated types, so callers write `CompressResult` rather than
// `components['schemas']['CompressResult']`. Types only: this package has no runtime logic.
import type { components, operations, paths } from './generated.js';

export type { components, operations, paths };

type Schemas = components['schemas'];

export type ErrorCode = Schemas['ErrorCode'];
export type ApiError = Schemas['Error'];
export type ErrorResponse = Schemas['ErrorResponse'];
export type Meta = Schemas['Meta'];

export type CompressionLevel = Schemas['CompressionLevel'];
export type CompressMethod = Schemas['CompressMethod'];
export type Download = Schemas['Download'];

export type CompressResult = Schemas['CompressResult'];
export type MergeResult = Schemas['MergeResult'];
export type SplitPart = Schemas['SplitPart'];
export type SplitResult = Schemas['SplitResult'];
export type OcrResult = Schemas['OcrResult'];
export type OcrWord = Schemas['OcrWord'];
export type OcrPdfMode = Schemas['OcrPdfMode'];
export type OcrPdfOutputType = Schemas['OcrPdfOutputType'];
export type OcrPdfPage = Schemas['OcrPdfPage'];
export type OcrPdfResult = Schemas['OcrPdfResult'];
export type PageSize = Schemas['PageSize'];
export type ImagesToPdfResult = Schemas['ImagesToPdfResult'];
export type PageImageFormat = Schemas['PageImageFormat'];
export type PageImage = Schemas['PageImage'];
export type PdfToImagesResult = Schemas['PdfToImagesResult'];
export type OfficeFormat = Schemas['OfficeFormat'];
export type PdfaLevel = Schemas['PdfaLevel'];
export type OfficeToPdfResult = Schemas['OfficeToPdfResult'];
export type PaperSize = Schemas['PaperSize'];
export type HtmlToPdfResult = Schemas['HtmlToPdfResult'];
export type Language = Schemas['Language'];
export type LanguagesResult = Schemas['LanguagesResult'];
export type EngineInfo = Schemas['EngineInfo'];
export type ConverterInfo = Schemas['ConverterInfo'];
export type HealthResult = Schemas['HealthResult'];
export type Plan = Schemas['Plan'];
export type AccountResult = Schemas['AccountResult'];
export type RevokedKey = Schemas['RevokedKey'];
export type JobId = Schemas['JobId'];
export type JobStatus = Schemas['JobStatus'];
export type JobOperation = Schemas['JobOperation'];
export type JobProgress = Schemas['JobProgress'];
export type Job = Schemas['Job'];
export type JobList = Schemas['JobList'];
export type CallbackUrl = Schemas['CallbackUrl'];
export type WebhookEvent = Schemas['WebhookEvent'];

export type CompressResponse = Schemas['CompressResponse'];
export type MergeResponse = Schemas['MergeResponse'];
export type SplitResponse = Schemas['SplitResponse'];
export type OcrResponse = Schemas['OcrResponse'];
export type OcrPdfResponse = Schemas['OcrPdfResponse'];
export type ImagesToPdfResponse = Schemas['ImagesToPdfResponse'];
export type PdfToImagesResponse = Schemas['PdfToImagesResponse'];
export type OfficeToPdfResponse = Schemas['OfficeToPdfResponse'];
export type HtmlToPdfResponse = Schemas['HtmlToPdfResponse'];
export type LanguagesResponse = Schemas['LanguagesResponse'];
export type HealthResponse = Schemas['HealthResponse'];
export type AccountResponse = Schemas['AccountResponse'];
export type JobResponse = Schemas['JobResponse'];
export type JobListResponse = Schemas['JobListResponse'];

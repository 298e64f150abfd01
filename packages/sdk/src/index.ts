// The only public door of @pdn/sdk (STYLE.md principle 2). Everything under internal/ is private.
export { ApiPromise, type WithResponse } from './api-promise.js';
export type {
  CallbackUrl,
  CompressionLevel,
  CompressMethod,
  Download,
  ErrorCode,
  JobOperation,
  JobProgress,
  JobStatus,
  Language,
  OcrPdfMode,
  OcrPdfOutputType,
  OcrPdfPage,
  OcrWord,
  OfficeFormat,
  PageImage,
  PageImageFormat,
  PageSize,
  PaperSize,
  PdfaLevel,
  Plan,
  SplitPart,
} from './api-types/index.js';
export {
  type CompressParams,
  type DownloadOptions,
  type HtmlToPdfParams,
  type ImagesToPdfParams,
  type MergeParams,
  type OcrParams,
  type OcrPdfParams,
  type OfficeToPdfParams,
  type PdfToImagesParams,
  Pdn,
  type PdnOptions,
  type RequestOptions,
  type SplitParams,
} from './client.js';
export {
  AbortError,
  ApiError,
  type ApiErrorInit,
  AuthenticationError,
  ConnectionError,
  ConverterUnavailableError,
  CorsRefusalError,
  ExpiredError,
  ForbiddenError,
  InsufficientStorageError,
  InternalServerError,
  InvalidInputError,
  JobCanceledError,
  LoginRefusedError,
  NotFoundError,
  PayloadTooLargeError,
  PdnError,
  type PdnErrorCode,
  RateLimitError,
  ServerBusyError,
  ServiceUnavailableError,
  TimeoutError,
  TooManyJobsError,
  WebhookVerificationError,
} from './errors.js';
export type { Logger, LogLevel } from './internal/logger.js';
export type { OcrDetail, Operation, OperationParams } from './internal/operations.js';
export type { RetryInfo } from './internal/request.js';
export type { UploadProgress } from './internal/upload-progress.js';
export type { Job, JobList, JobMethods, Jobs, ListParams, SubmitOptions, WaitOptions } from './jobs.js';
export type { Login, LoginCode, LoginGrant } from './login.js';
export type {
  AccountResult,
  CompressResult,
  HtmlToPdfResult,
  ImagesToPdfResult,
  LanguagesResult,
  MergeResult,
  OcrPdfResult,
  OcrResult,
  OcrWordsResult,
  OfficeToPdfResult,
  OperationResults,
  PdfToImagesResult,
  RateLimitInfo,
  RevokedKeyResult,
  SplitResult,
  WithMeta,
} from './results.js';
export { fromPath, NamedUpload, PathFile, toFile, type Uploadable, type UploadOptions } from './uploads.js';
export { VERSION } from './version.js';
export { type VerifyWebhookOptions, verifyWebhook, type WebhookEvent } from './webhooks.js';

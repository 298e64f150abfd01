// A failed job's stored error thrown again as the ApiError it was: a synchronous call answered by a
// process other than the one that ran its job gets the same status and envelope as one answered where
// the job ran (public-error.ts made the stored body).
import {
  type ApiError,
  ConverterUnavailableError,
  InsufficientStorageError,
  InternalError,
  InvalidInputError,
  PayloadTooLargeError,
  ServiceUnavailableError,
} from '../errors.js';
import type { JobError } from './job-store.js';

const BY_CODE: Readonly<Record<string, new (message: string) => ApiError>> = {
  invalid_input: InvalidInputError,
  converter_unavailable: ConverterUnavailableError,
  payload_too_large: PayloadTooLargeError,
  service_unavailable: ServiceUnavailableError,
  insufficient_storage: InsufficientStorageError,
};

export function errorOfJob(error: JobError | null): ApiError {
  const Kind = (error && BY_CODE[error.code]) ?? InternalError;
  return new Kind(error?.message ?? 'The job ended without a result.');
}

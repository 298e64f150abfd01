// An operation is one of the API's kinds of document work (compress, merge, split, ocr, ocr of
// documents) apart from HTTP (STYLE.md 17): inputs on disk, checked params and a work context in, the
// operation's `data` out. A worker calls them for every job (jobs/operation-processor.ts), synchronous
// calls and `Prefer: respond-async` alike; routes only parse the request and submit. Engines stay files
// in, files out.
import type { Download, JobOperation } from '@pdn/api-types';
import type { InputFile, WorkContext } from '../engines/types.js';
import { InvalidInputError } from '../errors.js';

/** An uploaded file as an operation sees it: where it is, the name the client gave it, its size. */
export interface OperationInput {
  path: string;
  /** `""` when the client sent no file name. */
  name: string;
  size: number;
}

/** Where an operation leaves its output files: moved into the output store, answered as a download. */
export interface OutputPublisher {
  /** `size`: the file's size in bytes, when the engine that wrote it counted it (spares a look). */
  publish(path: string, filename: string, size?: number): Promise<Download>;
}

export interface Operation<Params = unknown, Result = unknown> {
  readonly name: JobOperation;
  run(
    inputs: readonly OperationInput[],
    params: Params,
    work: WorkContext,
    outputs: OutputPublisher,
  ): Promise<Result>;
  /** `result` with each download replaced by `fresh(download)` (a job's URLs are signed per answer). */
  resign(result: Result, fresh: (download: Download) => Download): Result;
}

/** `"report.pdf"`, or `"the uploaded file"` when the client sent no name (engines/types.ts InputFile). */
export function labelled(input: OperationInput): InputFile {
  return { path: input.path, label: input.name === '' ? 'the uploaded file' : `"${input.name}"` };
}

/** The one input of a single-file operation; the route has already checked there is exactly one. */
export function onlyInput(inputs: readonly OperationInput[]): OperationInput {
  const [input] = inputs;
  if (input === undefined || inputs.length !== 1) throw new Error(`expected one input, got ${inputs.length}`);
  return input;
}

/** A form field that must be one of `values`, `fallback` when absent. */
export function parseChoice<T extends string>(
  name: string,
  raw: string | undefined,
  values: readonly T[],
  fallback: T,
): T {
  if (raw === undefined) return fallback;
  const value = values.find((candidate) => candidate === raw);
  if (value === undefined)
    throw new InvalidInputError(`\`${name}\` must be one of ${values.join(', ')}; got "${raw}".`);
  return value;
}

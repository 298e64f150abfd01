// Multipart uploads (issue #2): parsed by formidable straight to disk inside a fresh per-request work
// folder under the data folder, with the plan's whole-request cap enforced while the body streams
// (formidable counts file bytes per chunk). The folder is removed in `finally` after the route has
// answered, on success, on error and on client abort alike, so nothing an upload brings is left behind.
// Only the parts an operation declares are accepted; anything else is a 400 naming what is expected.
import { setMaxListeners } from 'node:events';
import formidable, { type Fields, type Files } from 'formidable';
import type { Middleware } from 'koa';
import { planLimits, planTitle } from '../../accounts/index.js';
import type { UploadLimits } from '../../config.js';
import { InvalidInputError, PayloadTooLargeError } from '../../errors.js';
import type { WorkDirs } from '../../storage/index.js';
import type { AppContext, AppState } from '../state.js';
import type { UploadedFile } from '../upload.js';

/** The parts of one operation's multipart body, as its OpenAPI requestBody declares them. */
export interface PartsSpec {
  /** e.g. "POST /api/v1/merge takes 2 to 20 PDFs in the repeated part `files[]`" */
  summary: string;
  files: readonly string[];
  fields: readonly string[];
}

/** Far above any route's own count check (merge's 2-20), so that check gives the message, not this. */
const MAX_FILES = 64;
const MAX_FIELDS = 16;
const MAX_FIELDS_BYTES = 64 * 1024;

/** formidable's error codes (formidable/src/FormidableError.js) that we answer specially. */
const ABORTED = 1002;
const FIELDS_TOO_LARGE = 1006;
const TOO_MANY_FIELDS = 1007;
const TOO_MANY_FILES = 1015;

interface FormidableFailure {
  code: number;
  httpCode: number;
  message: string;
}

function isFormidableFailure(error: unknown): error is FormidableFailure {
  const candidate = error as Partial<FormidableFailure> | null;
  return (
    typeof candidate?.httpCode === 'number' && typeof candidate.code === 'number' && candidate.code >= 1000
  );
}

function mebibytes(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
}

/** Listeners one request's engines may hold on its abort signal at once (20 merge inputs + margin). */
const ENGINE_LISTENERS = 32;

/** Abort signal for the engines: fires when the client disconnects before the answer is sent. */
function clientAbortSignal(ctx: AppContext): AbortSignal {
  const controller = new AbortController();
  // Every tool run of the request listens on this signal, and a merge inspects its up to 20 inputs at
  // once (engines/pdf/qpdf-engine.ts): above Node's default of 10 listeners that is design, not a leak.
  setMaxListeners(ENGINE_LISTENERS, controller.signal);
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) controller.abort(new Error('client closed the connection'));
  });
  return controller.signal;
}

export function uploads(
  spec: PartsSpec,
  deps: { workDirs: WorkDirs; uploadLimits: UploadLimits },
): Middleware<AppState> {
  const accepted = `${spec.summary}.`;
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    if (!principal) throw new Error('uploads needs the auth middleware in front of it');
    if (!ctx.is('multipart/form-data')) {
      throw new InvalidInputError(`Send the request body as multipart/form-data. ${accepted}`);
    }
    const limit = planLimits(principal.plan, deps.uploadLimits).uploadBytes;
    const tooLarge = () =>
      new PayloadTooLargeError(
        `The upload exceeds the ${mebibytes(limit)} limit of the ${planTitle(principal.plan)} plan for a whole request.`,
      );
    // An honest Content-Length already tells us: refuse before a byte of the body is read.
    if (Number(ctx.get('Content-Length')) > limit) {
      ctx.req.resume();
      throw tooLarge();
    }

    // Listen for a hang-up from the start: one during the upload must still stop the engines' work.
    const signal = clientAbortSignal(ctx);
    const workDir = await deps.workDirs.create();
    try {
      const unexpected = new Set<string>();
      // A declared text field sent with a filename reaches `filter` as a file, not as a field.
      const fieldsSentAsFiles = new Set<string>();
      const form = formidable({
        uploadDir: workDir,
        maxFileSize: limit,
        maxTotalFileSize: limit,
        maxFiles: MAX_FILES,
        maxFields: MAX_FIELDS,
        maxFieldsSize: MAX_FIELDS_BYTES,
        // Empty files reach the engines, which explain what is wrong with them in the route's terms.
        allowEmptyFiles: true,
        minFileSize: 0,
        filter: (part) => {
          if (part.name !== null && spec.files.includes(part.name)) return true;
          if (part.name !== null && spec.fields.includes(part.name)) fieldsSentAsFiles.add(part.name);
          else unexpected.add(part.name ?? '(unnamed)');
          return false;
        },
      });
      // formidable lists each field's files in the order their disk writes finish, not the order they
      // were sent (measured: 20 files to merge came back shuffled); merge keeps upload order (spec), so
      // remember where each file part began.
      const position = new Map<object, number>();
      form.on('fileBegin', (_name, file) => position.set(file, position.size));
      let parsed: [Fields, Files];
      try {
        // The client may be holding its body back until told to send it (see main.ts, checkContinue).
        // Should Node have said so already, a second 100 is harmless: RFC 9110 section 15.2 lets
        // clients receive any number of 1xx responses.
        if (/^100-continue$/i.test(ctx.get('Expect'))) ctx.res.writeContinue();
        parsed = await form.parse(ctx.req);
      } catch (error) {
        // After an error formidable stops reading; drain the rest so the client gets to read the answer.
        ctx.req.resume();
        if (!isFormidableFailure(error)) throw error;
        // formidable says 413 for its text-field cap too; that is our fixed cap, not the plan's
        // upload limit, and text fields are small by nature: a client mistake (QA, item 2).
        if (error.code === FIELDS_TOO_LARGE) {
          throw new InvalidInputError(
            `The text fields may hold at most ${MAX_FIELDS_BYTES / 1024} KiB in all; this request sent more. ${accepted}`,
            { cause: error },
          );
        }
        // formidable stops at the first part over its count, so "more than" is all that is known.
        if (error.code === TOO_MANY_FILES) {
          throw new InvalidInputError(
            `Too many files: more than ${MAX_FILES} file parts were sent. ${accepted}`,
            {
              cause: error,
            },
          );
        }
        if (error.code === TOO_MANY_FIELDS) {
          throw new InvalidInputError(
            `Too many text fields: more than ${MAX_FIELDS} were sent. ${accepted}`,
            {
              cause: error,
            },
          );
        }
        if (error.httpCode === 413) throw tooLarge();
        if (error.code === ABORTED)
          throw new InvalidInputError('The upload was aborted before it was complete.');
        throw new InvalidInputError(`The multipart body is malformed or incomplete. ${accepted}`, {
          cause: error,
        });
      }
      const [fields, files] = parsed;
      for (const name of Object.keys(fields)) {
        // formidable treats a part without a Content-Type as text, whatever its name.
        if (spec.files.includes(name)) {
          throw new InvalidInputError(
            `The part \`${name}\` must be a file (a part with a filename and a Content-Type), not a text field. ${accepted}`,
          );
        }
        if (!spec.fields.includes(name)) unexpected.add(name);
      }
      const [fieldAsFile] = fieldsSentAsFiles;
      if (fieldAsFile !== undefined) {
        throw new InvalidInputError(
          `The part \`${fieldAsFile}\` must be a text field (no filename), not a file. ${accepted}`,
        );
      }
      if (unexpected.size > 0) {
        const names = [...unexpected].map((name) => `\`${name}\``).join(', ');
        throw new InvalidInputError(`Unexpected part ${names}. ${accepted}`);
      }
      ctx.state.upload = {
        workDir,
        signal,
        log: ctx.state.log,
        files: new Map(
          Object.entries(files).map(([name, list]): [string, UploadedFile[]] => [
            name,
            [...(list ?? [])]
              .sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0))
              .map((file) => ({
                path: file.filepath,
                name: file.originalFilename ?? '',
                size: file.size,
              })),
          ]),
        ),
        fields: new Map(Object.entries(fields).map(([name, list]): [string, string[]] => [name, list ?? []])),
      };
      await next();
    } finally {
      await deps.workDirs.remove(workDir);
    }
  };
}

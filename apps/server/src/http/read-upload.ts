// Multipart uploads: parsed (multipart.ts) straight to disk inside a fresh per-request work folder
// under the data folder, with the plan's whole-request cap enforced while the body streams. The folder
// is removed once the work given the upload is over, on success, on error and on client abort alike,
// so nothing an upload brings is left behind; the answer does not wait for the removal.
import { setMaxListeners } from 'node:events';
import type { Plan } from '../accounts/index.js';
import { planLimits, planTitle } from '../accounts/index.js';
import type { UploadLimits, UploadPace } from '../config.js';
import { InvalidInputError, PayloadTooLargeError, RequestTimeoutError } from '../errors.js';
import { blameFullDisk, type WorkDirs } from '../storage/index.js';
import { expectsContinue } from './middleware/http-rules.js';
import { type PartsSpec, parseParts } from './multipart.js';
import { mebibytes } from './sizes.js';
import type { AppContext } from './state.js';
import type { Upload } from './upload.js';
import { bytesPerWindow } from './upload-pace.js';

export type { PartsSpec } from './multipart.js';

export interface UploadDeps {
  workDirs: WorkDirs;
  uploadLimits: UploadLimits;
  uploadPace: UploadPace;
}

/** Listeners one request's engines may hold on its abort signal at once (20 merge inputs + margin). */
const ENGINE_LISTENERS = 32;

/**
 * Abort signal for the engines: fires when the client disconnects before the answer is sent, or when
 * a stopping server gives up on the request (http/drain.ts).
 */
function abortSignal(ctx: AppContext): AbortSignal {
  const controller = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) controller.abort(new Error('client closed the connection'));
  });
  const { shutdown } = ctx.state;
  const signal = shutdown === undefined ? controller.signal : AbortSignal.any([controller.signal, shutdown]);
  // Every tool run of the request listens on this signal, and a merge inspects its up to 20 inputs at
  // once (engines/pdf/qpdf-engine.ts): above Node's default of 10 listeners that is design, not a leak.
  setMaxListeners(ENGINE_LISTENERS, signal);
  return signal;
}

/**
 * Reads the request's multipart body against `spec` into a fresh work folder, runs `work` on it, and
 * removes the folder once `work` is over, whatever happened.
 */
export async function readUpload<T>(
  ctx: AppContext,
  plan: Plan,
  spec: PartsSpec,
  deps: UploadDeps,
  work: (upload: Upload) => Promise<T>,
): Promise<T> {
  if (!ctx.is('multipart/form-data')) {
    throw new InvalidInputError(`Send the request body as multipart/form-data. ${spec.summary}.`);
  }
  const limit = planLimits(plan, deps.uploadLimits).uploadBytes;
  const tooLarge = () =>
    new PayloadTooLargeError(
      `The upload exceeds the ${mebibytes(limit)} limit of the ${planTitle(plan)} plan for a whole request.`,
    );
  const windowSeconds = deps.uploadPace.windowMs / 1000;
  const tooSlow = (windowBytes: number) => {
    ctx.state.log.info('upload cut: its body came too slowly', {
      window_bytes: windowBytes,
      window_seconds: windowSeconds,
    });
    return new RequestTimeoutError(
      `The upload came too slowly: ${windowBytes} bytes in ${windowSeconds} s, and this server wants at least ` +
        `${bytesPerWindow(deps.uploadPace)} in every ${windowSeconds} s. Send the body without long pauses.`,
    );
  };
  // An honest Content-Length already tells us: refuse before a byte of the body is read.
  if (Number(ctx.get('Content-Length')) > limit) throw tooLarge();

  // Listen for a hang-up from the start: one during the upload must still stop the engines' work,
  // and one while the work folder is made must stop the parse that follows.
  const signal = abortSignal(ctx);
  const workDir = await deps.workDirs.create();
  try {
    // The client may be holding its body back until told to send it (see http-server.ts,
    // checkContinue). Should Node have said so already, a second 100 is harmless: RFC 9110 section
    // 15.2 lets clients receive any number of 1xx responses.
    if (expectsContinue(ctx) && !signal.aborted) ctx.res.writeContinue();
    const { files, fields } = await parseParts(ctx.req, spec, {
      uploadDir: workDir,
      limit,
      tooLarge,
      pace: deps.uploadPace,
      tooSlow,
      signal,
    });
    try {
      return await work({ workDir, signal, log: ctx.state.log, files, fields });
    } catch (error) {
      // Judged before the folder goes: its files are what fills the disk.
      throw await blameFullDisk(error, workDir);
    }
  } finally {
    // Started now, not waited for: the answer goes out meanwhile instead of after it (0.7 to 1 ms a
    // synchronous call on a loaded machine, where its uploads have moved on into the job's inputs and
    // only the empty folder is left). What a stopped process leaves is reclaimed with its work area.
    deps.workDirs
      .remove(workDir)
      .catch((error: unknown) => ctx.state.log.warn('removing an upload folder failed', { error }));
  }
}

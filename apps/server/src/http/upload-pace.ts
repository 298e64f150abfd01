// The minimum pace of a request body (openapi.yaml, "Upload limits"). A synchronous call
// holds its place for synchronous calls from admission until it is answered, its upload included, so
// a client trickling its body (a byte every 5 s), or asking `Expect: 100-continue` and then sending
// nothing, held every place of a server for up to the 10-minute request timeout while everyone else
// was answered 503 (found by an attack pass). As Apache's mod_reqtimeout `MinRate` and nginx's
// `client_body_timeout` do, a body must keep coming: each window must bring a minimum of bytes, and
// at least one even where the rate is 0, or the upload is cut.
import type { UploadPace } from '../config.js';

/** The bytes each window must bring: the rate over the window, and never less than one. */
export function bytesPerWindow(pace: UploadPace): number {
  return Math.max(1, Math.ceil((pace.minBytesPerSecond * pace.windowMs) / 1000));
}

/**
 * Judges a body whose bytes so far `received()` counts, window after window from now, and calls
 * `tooSlow` once, with the bytes of the window that fell short. Returns the function that stops it.
 */
export function watchPace(
  pace: UploadPace,
  received: () => number,
  tooSlow: (windowBytes: number) => void,
): () => void {
  const needed = bytesPerWindow(pace);
  let atWindowStart = received();
  let judging: NodeJS.Immediate | undefined;
  const judge = () => {
    const windowBytes = received() - atWindowStart;
    if (windowBytes < needed) {
      stop();
      tooSlow(windowBytes);
    } else atWindowStart = received();
  };
  // Judged in the check phase, after the event loop's next poll: bytes that arrived while the loop
  // was busy with something else count for the window that ends, not against the client.
  const timer = setInterval(() => {
    judging = setImmediate(judge);
  }, pace.windowMs);
  const stop = () => {
    clearInterval(timer);
    if (judging !== undefined) clearImmediate(judging);
  };
  return stop;
}

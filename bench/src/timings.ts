// Where one compression's time went, read back from the server's log (issue #9: "compress time with the
// content check, split into inspection, Ghostscript, check and HTTP"). The compress engine logs one
// `compressed` line per answer with its request id and phase times, e.g.
//   2026-11-22T06:00:00.000Z INFO  compressed request_id=3f9a… level=medium method=ghostscript+qpdf …
//     inspect_ms=41 ghostscript_ms=512 qpdf_ms=30 check_ms=280 reference_ms=350
// Reading the log keeps these internal figures out of the API's responses.

export interface PhaseTimings {
  inspect: number;
  ghostscript: number;
  qpdf: number;
  /** The content check's wait on the answer's path. */
  check: number;
  /** The input's snapshot for the check, taken beside Ghostscript's rewrite. */
  reference: number;
}

function fieldsOf(line: string): Map<string, string> {
  return new Map(
    [...line.matchAll(/ (\w+)=(\S+)/g)].map(([, key, value]) => [key as string, value as string]),
  );
}

/** The phase timings of the `compressed` line of `requestId` in `log`; throws when there is none. */
export function compressTimings(log: string, requestId: string): PhaseTimings {
  const line = log
    .split('\n')
    .find((candidate) => candidate.includes(' compressed ') && candidate.includes(`request_id=${requestId}`));
  if (line === undefined) throw new Error(`no "compressed" log line for request ${requestId}`);
  const fields = fieldsOf(line);
  const ms = (key: string) => {
    const value = Number(fields.get(`${key}_ms`));
    if (!Number.isFinite(value)) throw new Error(`the log line of request ${requestId} has no ${key}_ms`);
    return value;
  };
  // The snapshot is absent when no candidate needed checking (the answer was the original).
  const reference = Number(fields.get('reference_ms') ?? 0);
  return {
    inspect: ms('inspect'),
    ghostscript: ms('ghostscript'),
    qpdf: ms('qpdf'),
    check: ms('check'),
    reference: Number.isFinite(reference) ? reference : 0,
  };
}

// Where one compression's time went, read back from the server's log ("compress time with the
// content check, split into inspection, Ghostscript, check and HTTP"). The compress engine logs one
// `compressed` record per answer with its request id and phase times, as one JSON line, e.g.
//   {"level":"info","time":"…","request_id":"3f9a…","msg":"compressed",
//    "inspect_ms":41,"ghostscript_ms":512,"qpdf_ms":30,"check_ms":280,"reference_ms":350}
// Reading the log keeps these internal figures out of the API's responses.
import { percentile } from './stats.js';

export interface PhaseTimings {
  inspect: number;
  ghostscript: number;
  qpdf: number;
  /** The content check's wait on the answer's path. */
  check: number;
  /** The input's snapshot for the check, taken beside Ghostscript's rewrite. */
  reference: number;
}

/** The log's JSON records; the lines that are not one (a tool's stray output) are skipped. */
export function recordsOf(log: string): Record<string, unknown>[] {
  const records: Record<string, unknown>[] = [];
  for (const line of log.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      records.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // A line cut by the harness's output window.
    }
  }
  return records;
}

/** The phase timings of the `compressed` record of `requestId` in `log`; throws when there is none. */
export function compressTimings(log: string, requestId: string): PhaseTimings {
  const fields = recordsOf(log).find(
    (record) => record.msg === 'compressed' && record.request_id === requestId,
  );
  if (fields === undefined) throw new Error(`no "compressed" log line for request ${requestId}`);
  const ms = (key: string) => {
    const value = Number(fields[`${key}_ms`]);
    if (!Number.isFinite(value)) throw new Error(`the log line of request ${requestId} has no ${key}_ms`);
    return value;
  };
  // The snapshot is absent when no candidate needed checking (the answer was the original).
  const reference = Number(fields.reference_ms ?? 0);
  return {
    inspect: ms('inspect'),
    ghostscript: ms('ghostscript'),
    qpdf: ms('qpdf'),
    check: ms('check'),
    reference: Number.isFinite(reference) ? reference : 0,
  };
}

/** Each phase's median over several runs' timings. */
export function medianTimings(runs: readonly PhaseTimings[]): PhaseTimings {
  const of = (phase: keyof PhaseTimings) =>
    percentile(
      runs.map((timings) => timings[phase]),
      50,
    );
  return {
    inspect: of('inspect'),
    ghostscript: of('ghostscript'),
    qpdf: of('qpdf'),
    check: of('check'),
    reference: of('reference'),
  };
}

// Whether a candidate may be the answer: smaller than the input, with the input's page count, and above the
// content check's floors. A refusal is logged (the request's log carries its id).
import { basename } from 'node:path';
import { InternalError } from '../../errors.js';
import type { EngineLog } from '../types.js';
import { beatsInput, type Candidate } from './candidates.js';
import type { ContentCheck, ContentVerdict } from './content-check/content-check.js';

export interface ProveOptions {
  inputSize: number;
  /** Throws InternalError unless the file has the input's page count (output-check.ts). */
  pages(path: string): Promise<void>;
  content: ContentCheck;
  log: EngineLog | undefined;
}

export interface Proof {
  chosen: Candidate | undefined;
  /** Whether the candidate was refused, rather than simply not smaller than the input. */
  rejected: boolean;
  /** Whether it was refused for lost text or structure (ContentVerdict), not for how its pages look. */
  lostTextOrStructure?: boolean;
  /** The chosen candidate's scores, as log fields. */
  evidence: Record<string, unknown>;
}

async function judge(c: Candidate, o: ProveOptions, content: Content): Promise<ContentVerdict> {
  try {
    await o.pages(c.path);
  } catch (error) {
    if (error instanceof InternalError) return { rejected: error.message };
    throw error;
  }
  const name = basename(c.path, '.pdf');
  return content === 'unchanged' ? o.content.proveStructure(c.path, name) : o.content.prove(c.path, name);
}

/** A score in dB as a log field: "inf" where the renders were identical. */
const decibels = (db: number | undefined) =>
  db === undefined || Number.isFinite(db) ? db?.toFixed(1) : 'inf';

function evidence({ worstPsnrDb, worstTile, words }: ContentVerdict): Record<string, unknown> {
  return {
    worst_psnr_db: decibels(worstPsnrDb),
    // The margins above the tile floors (content-check/floors.ts).
    worst_tile:
      worstTile &&
      `${decibels(worstTile.db)} dB, ${decibels(worstTile.paperDb)} dB paper, similarity ${worstTile.similarity?.toFixed(2) ?? 'none'}`,
    words_kept: words && `${words.kept}/${words.reference}`,
  };
}

/**
 * `unchanged`: the candidate's pages draw the input's content by construction (a lossless rewrite), so
 * its page count and structure are all there is to prove; `rewritten`: the whole content check.
 */
export type Content = 'unchanged' | 'rewritten';

export async function proveCandidate(c: Candidate, o: ProveOptions, content: Content): Promise<Proof> {
  if (!beatsInput(c, o.inputSize)) return { chosen: undefined, rejected: false, evidence: {} };
  const verdict = await judge(c, o, content);
  if (verdict.rejected === undefined) return { chosen: c, rejected: false, evidence: evidence(verdict) };
  o.log?.warn('compress candidate rejected', {
    method: c.method,
    file: basename(c.path),
    bytes: c.size,
    reason: verdict.rejected,
  });
  return {
    chosen: undefined,
    rejected: true,
    lostTextOrStructure: verdict.lostTextOrStructure === true,
    evidence: {},
  };
}

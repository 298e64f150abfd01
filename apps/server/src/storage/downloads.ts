// Turning stored outputs into signed download objects and back (v1 specification, Download object).
// A URL is valid for 900 seconds; the output is kept as long as its job's
// retention says, and a URL never outlives it.
import type { Download } from '@pdn/api-types';
import { ExpiredError, ForbiddenError, NotFoundError } from '../errors.js';
import type { OutputRow } from './output-rows.js';
import type { OpenedOutput, OutputStore } from './output-store.js';
import type { UrlSigner } from './url-signer.js';

export const DOWNLOAD_TTL_SECONDS = 900;
export const DOWNLOAD_PATH = '/api/get-pdf.php';

export class Downloads {
  constructor(
    private readonly store: OutputStore,
    private readonly signer: UrlSigner,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Stores the file at `path` under `filename`, kept until `output.keepUntil` (Unix ms), and returns
   * its signed download object. A job's outputs are kept for its retention (jobs/retention.ts); a
   * small one may be left in `withEnd` for its job's end to store (OutputStore.put). `output.size`: the
   * file's size when its engine counted it.
   */
  async publish(
    path: string,
    filename: string,
    output: { id: string; keepUntil: number; size?: number; withEnd?: OutputRow[] },
  ): Promise<Download> {
    const { id, keepUntil, size, withEnd } = output;
    const given = { filename, expiresAt: keepUntil, ...(size === undefined ? {} : { size }) };
    const meta = await this.store.put(id, path, given, withEnd);
    return this.sign(meta.id, keepUntil);
  }

  /** `download` signed afresh by this answer (a job's result, read later): 900 s, never past `keepUntil`. */
  resign(download: Download, keepUntil: number): Download {
    const id = new URLSearchParams(download.url.slice(download.url.indexOf('?') + 1)).get('file') ?? '';
    return this.sign(id, keepUntil);
  }

  private sign(id: string, keepUntil: number): Download {
    const now = Math.floor(this.now() / 1000);
    const exp = Math.min(now + DOWNLOAD_TTL_SECONDS, Math.floor(keepUntil / 1000));
    const query = new URLSearchParams({ file: id, exp: String(exp), sig: this.signer.sign(id, exp) });
    return {
      url: `${DOWNLOAD_PATH}?${query.toString()}`,
      expires_in: Math.max(0, exp - now),
      expires_at: new Date(exp * 1000).toISOString(),
    };
  }

  /**
   * The output a download URL's query names. Order matters: a bad signature is 403 before anything
   * else is revealed; a good one past `exp` is 410 even when the sweeper already deleted the file;
   * only a good, unexpired signature can learn that the output is gone (404).
   */
  async open(query: Readonly<Record<string, unknown>>): Promise<OpenedOutput> {
    const verified = this.signer.verify(query);
    if (!verified.ok) throw new ForbiddenError(`This download link is not valid: ${verified.reason}.`);
    if (verified.exp * 1000 <= this.now()) {
      throw new ExpiredError(
        'This download link has expired (links are valid for 15 minutes); run the operation again.',
      );
    }
    const output = await this.store.open(verified.file);
    if (!output) throw new NotFoundError('This output no longer exists; run the operation again.');
    return output;
  }
}

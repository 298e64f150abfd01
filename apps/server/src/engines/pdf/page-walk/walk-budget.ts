// What one walk may spend, whatever the file says: bytes inflated, bytes parsed and tokens read. Each
// object or section is read once in a well-formed file, but a hostile one can point many entries at the
// same bytes (an object stream's offsets, overlapping cross-reference sections), inflate a small stream
// to a huge one, or fill its page tree with tokens; past the budget, the walk gives up (a Doubt) and
// qpdf, under its own limits, decides.
import { Doubt, type TokenBudget } from './pdf-syntax.js';

/**
 * Inflated bytes across all of a file's streams: page-tree nodes of 5000 pages take about 1 MiB. The
 * walk runs on the event loop, so what it may parse is kept to a few tens of milliseconds of work.
 */
const MAX_DECODED_BYTES = 8 * 1024 * 1024;
/** Slack for the parse budget: the objects around the tree (catalog, trailer) in a tiny file. */
const PARSE_SLACK = 64 * 1024;
/**
 * Tokens (values, dictionary keys, the integers of cross-reference and object-stream headers) across
 * the walk. A token costs far more than a byte of white space, and the byte budget grows with the
 * file: 8 MB of 4000 pages padded with names or reals held the event loop 1 to 3 s within it (found by
 * attacking the page walk). Plain leaves take about 10 tokens a page (5000 pages: 50,000) and pdf-lib's
 * about 40 (300 pages: 12,000), so a document of thousands of pages may go to qpdf, whose process
 * start is then a small part of the work anyway; the padded files give up here in 10 to 50 ms
 * (after the first run) at a load of 18 on 2 cores.
 */
export const MAX_TOKENS = 64 * 1024;

export class WalkBudget implements TokenBudget {
  private decoded = 0;
  private parsed = 0;
  private tokens = 0;

  /** A well-formed file parses each of its bytes and each inflated byte at most once. */
  constructor(private readonly fileBytes: number) {}

  /** How many bytes the next stream may still inflate to. */
  get decodable(): number {
    return MAX_DECODED_BYTES - this.decoded;
  }

  spendDecoded(bytes: number): void {
    this.decoded += bytes;
    if (this.decoded > MAX_DECODED_BYTES) throw new Doubt('inflates past the budget');
  }

  spendToken(): void {
    if (++this.tokens > MAX_TOKENS) throw new Doubt('reads too many tokens');
  }

  spendParsed(bytes: number): void {
    this.parsed += bytes;
    if (this.parsed > this.fileBytes + this.decoded + PARSE_SLACK) throw new Doubt('parses past the budget');
  }
}

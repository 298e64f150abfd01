// A mistyped OCR language fails before any file is sent (issue #19), with the closest codes: the
// list costs no call of the hourly quota (openapi.yaml, "Rate limits"), a request refused for its
// language would cost one per file. Used by `pdn ocr` and `pdn ocr-pdf`.
import { closest } from './closest.js';
import type { Client, CommandContext } from './context.js';
import { UsageError } from './errors.js';

export async function checkLanguage(ctx: CommandContext, client: Client, language: string): Promise<void> {
  const { languages } = await client.pdn.languages({ signal: ctx.io.signal });
  const codes = languages.map((entry) => entry.code);
  const unknown = language.split('+').filter((code) => !codes.includes(code));
  if (unknown.length === 0) return;
  const problems = unknown.map((code) => {
    const near = closest(code, codes);
    return `unknown OCR language "${code}"${near.length > 0 ? `; did you mean ${near.join(' or ')}?` : ''}`;
  });
  throw new UsageError(
    `${problems.join('\n')}\n\`pdn languages\` lists the ${codes.length} codes this server accepts.`,
  );
}

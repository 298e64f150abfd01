// A mistyped OCR language fails before any file is sent, with the closest codes, also by the
// language's name (`--language german`: did you mean deu (German)?): the list costs no call of the
// hourly quota (openapi.yaml, "Rate limits"), a request refused for its language would cost one per
// file. Used by `pdn ocr` and `pdn ocr-pdf`.
import { closest } from './closest.js';
import type { Client, CommandContext } from './context.js';
import { UsageError } from './errors.js';
import { codesNamed, namesOf, withName } from './language-names.js';

/** Up to three codes the user may have meant by `word`: by name first, then by spelling. */
export function meantLanguages(word: string, codes: readonly string[]): string[] {
  const names = namesOf(codes);
  const bySpelledName = closest(
    word,
    names.map((entry) => entry.name),
  ).flatMap((name) => names.filter((entry) => entry.name === name).map((entry) => entry.code));
  return [...new Set([...codesNamed(word, codes), ...closest(word, codes), ...bySpelledName])].slice(0, 3);
}

export async function checkLanguage(ctx: CommandContext, client: Client, language: string): Promise<void> {
  const { languages } = await client.pdn.languages({ signal: ctx.io.signal });
  const codes = languages.map((entry) => entry.code);
  const unknown = language.split('+').filter((code) => !codes.includes(code));
  if (unknown.length === 0) return;
  const problems = unknown.map((code) => {
    const near = meantLanguages(code, codes).map(withName);
    return `unknown OCR language "${code}"${near.length > 0 ? `; did you mean ${near.join(' or ')}?` : ''}`;
  });
  throw new UsageError(
    `${problems.join('\n')}\n\`pdn languages\` lists the ${codes.length} codes this server accepts.`,
  );
}

// `pdn languages`: the OCR languages the server accepts (GET /api/v1/languages).
import type { LanguagesResult } from '@pdn/sdk';
import type { Command } from 'commander';
import { CommandContext, type Io } from '../context.js';
import { examples } from '../help.js';
import type { HumanView } from '../reporter.js';
import { eachItem, runOperations } from '../run-operations.js';

export function registerLanguages(program: Command, io: Io): void {
  program
    .command('languages')
    .summary("list the server's OCR languages")
    .description('List the language codes `pdn ocr --language` accepts on this server.')
    .addHelpText(
      'after',
      examples('pdn languages', 'pdn languages --json | jq -r ".results[0].data.languages[].code"'),
    )
    .action(async (_flags: object, command: Command) => {
      const ctx = CommandContext.of(command, io);
      const client = await ctx.connect();
      await runOperations(ctx, {
        command: 'languages',
        items: [null],
        input: () => null,
        execute: eachItem(ctx, async (_item, progress) => {
          progress('asking the server');
          const result = await client.pdn.languages({ signal: ctx.io.signal });
          return { requestId: result.requestId, data: { ...result }, outputs: [] };
        }),
        view: languagesView,
      });
    });
}

const languagesView: HumanView = {
  essential: true,
  succeeded(item, style) {
    const data = item.data as LanguagesResult;
    return data.languages
      .map((language) => {
        const notes = [language.source, ...(language.code === data.default ? ['default'] : [])];
        return `${language.code}  ${style.dim(`(${notes.join(', ')})`)}`;
      })
      .join('\n');
  },
};

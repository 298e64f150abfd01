// `pdn status`: the plan, its hourly limit and the calls left in the rolling hour, from
// GET /api/v1/account, which does not count against the limit, so checking spends nothing.
import type { AccountResult } from '@pdn/sdk';
import type { ChalkInstance } from 'chalk';
import type { Command } from 'commander';
import { CommandContext, type Io } from '../context.js';
import { examples } from '../help.js';
import type { HumanView } from '../reporter.js';
import { eachItem, runOperations } from '../run-operations.js';

export function registerStatus(program: Command, io: Io): void {
  program
    .command('status')
    .summary('show your plan and the calls left this hour')
    .description(
      'Show the plan of the API key in use, its hourly limit and the calls left in the rolling hour. ' +
        'Asking does not count against the limit.',
    )
    .addHelpText('after', examples('pdn status', 'pdn status --json | jq ".results[0].data.remaining"'))
    .action(async (_flags: object, command: Command) => {
      const ctx = CommandContext.of(command, io);
      const client = await ctx.connect();
      await runOperations(ctx, {
        command: 'status',
        items: [null],
        input: () => null,
        execute: eachItem(ctx, async (_item, progress) => {
          progress('asking the server');
          const result = await client.pdn.account({ signal: ctx.io.signal });
          return { requestId: result.requestId, data: { ...result }, outputs: [] };
        }),
        view: statusView(() => Date.now()),
      });
    });
}

/** "in 42 min (13:00 UTC)": when the next slot frees, relative and absolute. */
function whenFree(at: string, now: number): string {
  const minutes = Math.max(1, Math.ceil((Date.parse(at) - now) / 60_000));
  return `in ${minutes} min (${at.slice(11, 16)} UTC)`;
}

function planLine(data: AccountResult): string {
  const title = data.plan.charAt(0).toUpperCase() + data.plan.slice(1);
  return data.requests_per_hour === null
    ? `${title} (no hourly limit)`
    : `${title} (${data.requests_per_hour} calls per hour)`;
}

export function statusView(now: () => number): HumanView {
  return {
    essential: true,
    succeeded(item, style: ChalkInstance) {
      const data = item.data as AccountResult;
      const rows: [string, string][] = [
        ['Plan', planLine(data)],
        ['Used', `${data.used} in the last hour`],
        ['Left', data.remaining === null ? 'unlimited' : String(data.remaining)],
        ['Next slot', data.next_slot_at === null ? 'now' : whenFree(data.next_slot_at, now())],
        ['Key', `${data.key.id} (${data.key.kind})`],
      ];
      return rows.map(([name, value]) => `${style.dim(name.padEnd(10))}${value}`).join('\n');
    },
  };
}

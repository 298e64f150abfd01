// `pdn config set|get|unset|path`: the config file, after Stripe's CLI. A full API key is
// never printed, not even by `get`, so a shared terminal or CI log cannot leak it.
import { text } from 'node:stream/consumers';
import type { Command } from 'commander';
import { closest } from '../closest.js';
import {
  CONFIG_KEYS,
  type ConfigKey,
  type ConfigValues,
  maskApiKey,
  readConfig,
  writeConfig,
} from '../config-file.js';
import { CommandContext, type Io } from '../context.js';
import { UsageError } from '../errors.js';
import { examples } from '../help.js';
import { STDIO } from '../output-naming.js';

/** The key format of the v1 specification ("Authentication", point 3). */
const API_KEY = /^pdn_(live|test)_[0-9a-f]{32}$/;

export function registerConfig(program: Command, io: Io): void {
  const config = program
    .command('config')
    .summary('manage the config file (API key, base URL)')
    .description(
      'Manage $XDG_CONFIG_HOME/pdn/config.json (default ~/.config/pdn/config.json), created readable by you only (0600).\n' +
        `Keys: ${Object.keys(CONFIG_KEYS).join(', ')}. --api-key and PDN_API_KEY (--base-url, PDN_BASE_URL) take precedence over it.`,
    )
    .addHelpText(
      'after',
      examples('pdn config set api-key pdn_live_0123…', 'pdn config get', 'pdn config path'),
    );

  config
    .command('set')
    .description('save a value')
    .argument('<key>', Object.keys(CONFIG_KEYS).join(' | '))
    .argument('<value>', 'the value, or - to read it from stdin')
    .addHelpText(
      'after',
      examples(
        'pdn config set api-key pdn_live_0123…',
        'printenv KEY | pdn config set api-key -',
        'pdn config set base-url https://pdn.example.com',
      ),
    )
    .action(async (key: string, value: string, _flags: object, command: Command) => {
      const ctx = CommandContext.of(command, io);
      const name = configKey(key);
      // `-` reads the value from stdin, keeping a key out of shell history and `ps`.
      const given = value === STDIO ? await text(io.stdin) : value;
      const values = await readConfig(ctx.configPath);
      values[CONFIG_KEYS[name]] = validate(name, given.trim());
      await writeConfig(ctx.configPath, values);
      show(ctx, values, `saved ${name} to ${ctx.configPath}`);
    });

  config
    .command('get')
    .description('show the saved values (the API key masked)')
    .argument('[key]', Object.keys(CONFIG_KEYS).join(' | '))
    .addHelpText('after', examples('pdn config get', 'pdn config get base-url', 'pdn config get --json'))
    .action(async (key: string | undefined, _flags: object, command: Command) => {
      const ctx = CommandContext.of(command, io);
      const values = await readConfig(ctx.configPath);
      if (key === undefined) {
        show(ctx, values);
        return;
      }
      const name = configKey(key);
      const value = shown(values)[CONFIG_KEYS[name]];
      if (ctx.globals.json) ctx.reporter.printJson({ key: name, value });
      else ctx.reporter.print(value ?? '(not set)');
    });

  config
    .command('unset')
    .description('remove a saved value')
    .argument('<key>', Object.keys(CONFIG_KEYS).join(' | '))
    .addHelpText('after', examples('pdn config unset api-key'))
    .action(async (key: string, _flags: object, command: Command) => {
      const ctx = CommandContext.of(command, io);
      const name = configKey(key);
      const values = await readConfig(ctx.configPath);
      delete values[CONFIG_KEYS[name]];
      await writeConfig(ctx.configPath, values);
      show(ctx, values, `removed ${name} from ${ctx.configPath}`);
    });

  config
    .command('path')
    .description('print where the config file is')
    .addHelpText('after', examples('pdn config path', 'cat "$(pdn config path)"'))
    .action((_flags: object, command: Command) => {
      const ctx = CommandContext.of(command, io);
      if (ctx.globals.json) ctx.reporter.printJson({ path: ctx.configPath });
      else ctx.reporter.print(ctx.configPath);
    });
}

function configKey(key: string): ConfigKey {
  if (Object.hasOwn(CONFIG_KEYS, key)) return key as ConfigKey;
  const keys = Object.keys(CONFIG_KEYS);
  // `apikey`, `api_key`, `baseurl`: the keys as people type them.
  const near = closest(key.replace(/_/g, '-'), keys);
  const meant = near.length > 0 ? `; did you mean ${near.join(' or ')}?` : '.';
  throw new UsageError(`unknown config key "${key}"${meant} The keys are: ${keys.join(', ')}.`);
}

function validate(key: ConfigKey, value: string): string {
  if (key === 'api-key' && !API_KEY.test(value)) {
    throw new UsageError('an API key looks like pdn_live_ or pdn_test_ followed by 32 lowercase hex digits');
  }
  if (key === 'base-url' && !/^https?:\/\/[^/]/.test(value)) {
    throw new UsageError('the base URL must start with http:// or https://');
  }
  return value;
}

/** The values as they may be printed: the key masked. */
function shown(values: ConfigValues): { api_key: string | null; base_url: string | null } {
  return {
    api_key: values.api_key === undefined ? null : maskApiKey(values.api_key),
    base_url: values.base_url ?? null,
  };
}

function show(ctx: CommandContext, values: ConfigValues, note?: string): void {
  const printable = shown(values);
  if (ctx.globals.json) {
    ctx.reporter.printJson({ path: ctx.configPath, ...printable });
    return;
  }
  if (note !== undefined) ctx.reporter.print(note);
  ctx.reporter.print(`api-key   ${printable.api_key ?? '(not set)'}`);
  ctx.reporter.print(`base-url  ${printable.base_url ?? '(not set)'}`);
}

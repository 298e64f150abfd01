// `pdn login` and `pdn logout`, after `gh auth login`: the terminal asks the server for a one-time
// code (OAuth's device authorization grant, RFC 8628; the server's accounts/device-logins.ts), the
// user enters or confirms it on the account page of a browser where they are signed in, and the
// terminal, polling at the interval the server gives (slower when told `slow_down`), receives a new
// key named for this machine and saves it in the config file (0600). `pdn logout` revokes the saved
// key on the server and removes it from the file. Copying a key by hand (`pdn config set api-key`)
// works as before. The calls are the SDK's (`pdn.login`, `pdn.revokeKey`); a denial or an expired
// code ends with its LoginRefusedError, exit 3.
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { AuthenticationError, Pdn } from '@pdn/sdk';
import type { Command } from 'commander';
import { maskApiKey, readConfig, writeConfig } from '../config-file.js';
import { CommandContext, type Io } from '../context.js';
import { examples } from '../help.js';
import { resolveConnection } from '../settings.js';

/** Opens `url` in the desktop's browser where there is one to open; says nothing when it cannot. */
function openBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  const child = spawn(command, args, { stdio: 'ignore', detached: true });
  child.on('error', () => {});
  child.unref();
}

/** The server's base URL, as every command resolves it, without needing a key. */
async function baseUrlOf(ctx: CommandContext): Promise<{ baseUrl: string; saved: boolean }> {
  const connection = resolveConnection(ctx.globals, ctx.io.env, await readConfig(ctx.configPath));
  const pdn = new Pdn(connection.baseUrl === undefined ? {} : { baseUrl: connection.baseUrl });
  // Given by flag or environment, it is saved with the key, so the key is used where it works.
  return {
    baseUrl: pdn.baseUrl,
    saved: connection.baseUrlSource === 'flag' || connection.baseUrlSource === 'env',
  };
}

export function registerLogin(program: Command, io: Io): void {
  program
    .command('login')
    .summary('sign this terminal in with your browser, saving a new key')
    .description(
      'Shows a one-time code and the account page to enter it on (opening the browser where it can). ' +
        'Once you approve there, a new API key named for this machine is saved in the config file (0600). ' +
        'Codes last 15 minutes and work once.',
    )
    .option('--no-browser', 'do not open the browser; only print where to go')
    .addHelpText('after', examples('pdn login', 'pdn login --base-url https://pdn.example.com', 'pdn logout'))
    .action(async (flags: { browser: boolean }, command: Command) => {
      const ctx = CommandContext.of(command, io);
      const { baseUrl, saved } = await baseUrlOf(ctx);
      const { login } = new Pdn({ baseUrl });
      const code = await login.start(hostname(), { signal: io.signal });
      // The code is for the person at the terminal, whatever --json or --quiet say about the rest.
      io.stderr.write(
        `First copy your one-time code: ${code.userCode}\n` +
          `Then open ${code.verificationUriComplete}\n` +
          `(or ${code.verificationUri} and enter the code) and approve. Waiting for approval...\n`,
      );
      if (flags.browser && io.stderr.isTTY === true && !io.env.CI) openBrowser(code.verificationUriComplete);
      const granted = await login.wait(code, { signal: io.signal });
      const values = await readConfig(ctx.configPath);
      values.api_key = granted.apiKey;
      if (saved) values.base_url = baseUrl;
      await writeConfig(ctx.configPath, values);
      const masked = maskApiKey(granted.apiKey);
      if (ctx.globals.json)
        ctx.reporter.printJson({
          logged_in: true,
          owner: granted.owner,
          key_id: granted.keyId,
          key: masked,
        });
      else
        ctx.reporter.print(
          `Logged in as ${granted.owner}: key "${granted.keyName}" (${masked}) saved to ${ctx.configPath}.`,
        );
    });

  program
    .command('logout')
    .summary('revoke the saved key on the server and remove it')
    .description('Revokes the API key saved in the config file on the server, then removes it from the file.')
    .addHelpText('after', examples('pdn logout'))
    .action(async (_flags: object, command: Command) => {
      const ctx = CommandContext.of(command, io);
      const values = await readConfig(ctx.configPath);
      const key = values.api_key;
      if (key === undefined) {
        ctx.reporter.print(`Not logged in: no key is saved in ${ctx.configPath}.`);
        return;
      }
      const { baseUrl } = await baseUrlOf(ctx);
      try {
        await new Pdn({ apiKey: key, baseUrl }).revokeKey({ signal: io.signal });
      } catch (error) {
        // Revoked already (on the keys page, say): there is nothing left to revoke.
        if (!(error instanceof AuthenticationError)) throw error;
      }
      delete values.api_key;
      await writeConfig(ctx.configPath, values);
      if (ctx.globals.json) ctx.reporter.printJson({ logged_out: true, key: maskApiKey(key) });
      else
        ctx.reporter.print(
          `Logged out: key ${maskApiKey(key)} is revoked and removed from ${ctx.configPath}.`,
        );
    });
}

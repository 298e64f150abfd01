// `pdn` at a real terminal, under a pseudo-terminal that `script` owns: Ctrl-C in the middle of a
// batch, with the spinner running, still prints the report and exits 130, and an upload in flight
// then is reported interrupted, not failed; a usage error is three lines, not the help that pushed
// it off the screen; `-o -` will not pour a PDF onto the screen unless forced.
import { readdir } from 'node:fs/promises';
import { labelledPdf } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { TcpProxy } from '../src/harness/tcp-proxy.js';
import { useServer } from '../src/harness/use-server.js';
import { hasScript, pdnInTerminal } from './run-in-terminal.js';
import { useWorkspace } from './workspace.js';

const ctx = useServer();
const ws = useWorkspace();
let key: string;

const env = () => ({ PDN_API_KEY: key, PDN_BASE_URL: ctx.server.baseUrl, XDG_CONFIG_HOME: ws.configHome });

/** Ten two-page PDFs in `folder`, relative paths in order. */
async function batch(folder: string): Promise<string[]> {
  return Promise.all(
    Array.from({ length: 10 }, async (_, i) => {
      const name = `${folder}/doc${i}.pdf`;
      await ws.file(name, await labelledPdf(`${folder}${i}`, 2));
      return name;
    }),
  );
}

beforeAll(async () => {
  key = await ctx.server.createKey({ user: 'terminal', plan: 'enterprise' });
});

describe.runIf(hasScript)('at a terminal', () => {
  it('Ctrl-C mid-batch with the spinner running: the report prints, exit 130', async () => {
    const files = await batch('ctrl-c');
    const terminal = pdnInTerminal(['compress', ...files, '-o', 'ctrl-c-out', '--concurrency', '1'], {
      cwd: ws.dir,
      env: env(),
    });
    // The spinner's "compress 0/10 ·" line, then the first file's result line.
    await terminal.waitFor(/compress \d+\/10/);
    await terminal.waitFor(/✔ ctrl-c\/doc0\.pdf → /);
    terminal.type('\x03');
    const { code, screen } = await terminal.done;
    expect(code, screen).toBe(130);
    const notProcessed = screen.match(/- ctrl-c\/doc\d\.pdf: not processed \(interrupted\)/g) ?? [];
    expect(notProcessed.length, screen).toBeGreaterThan(0);
    expect(screen).toMatch(/\d+ succeeded, \d+ failed, \d+ not processed/);
    // Every file the report calls done is on disk, and nothing else (no temp files either).
    const done = [...screen.matchAll(/✔ ctrl-c\/(doc\d)\.pdf → /g)].map(
      (match) => `${match[1]}.compressed.pdf`,
    );
    expect((await readdir(ws.path('ctrl-c-out'))).sort()).toEqual(done.sort());
  });

  it('Ctrl-C during an upload reports it interrupted, not failed', async () => {
    // Through a proxy that stops passing on the upload: it stays in flight until Ctrl-C.
    const proxy = await TcpProxy.start({ host: '127.0.0.1', port: Number(new URL(ctx.server.baseUrl).port) });
    try {
      proxy.hold();
      await ws.file(
        'stalled/big.pdf',
        Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(64 * 2 ** 20)]),
      );
      const terminal = pdnInTerminal(['compress', 'stalled/big.pdf', '-o', 'stalled-out'], {
        cwd: ws.dir,
        env: { ...env(), PDN_BASE_URL: `http://127.0.0.1:${proxy.port}` },
      });
      await terminal.waitFor(/uploading/);
      terminal.type('\x03');
      const { code, screen } = await terminal.done;
      expect(code, screen).toBe(130);
      expect(screen).toMatch(/- stalled\/big\.pdf: not processed \(interrupted\)/);
      expect(screen).not.toMatch(/✖ stalled\/big\.pdf/);
      expect(screen).not.toMatch(/Request was aborted/);
    } finally {
      await proxy.close();
    }
  });

  it('a usage error is the error, a suggestion and one line to --help', async () => {
    const { code, screen } = await pdnInTerminal(['compress', 'a.pdf', '--levl', 'high'], {
      cwd: ws.dir,
      env: env(),
    }).done;
    expect(code).toBe(2);
    expect(screen.trim().split('\n')).toEqual([
      "error: unknown option '--levl'",
      '(Did you mean --level?)',
      "Run 'pdn compress --help' for usage.",
    ]);
  });

  it("waiting for jobs, the spinner shows each job's state", async () => {
    // Long enough that the first look finds the first job unfinished, and the spinner shows it
    // until the next look (a second at least: the server's poll_after_seconds).
    const files: string[] = [];
    for (let i = 0; i < 4; i++)
      files.push(await ws.file(`progress/doc${i}.pdf`, await labelledPdf(`p${i}`, 40)));
    const terminal = pdnInTerminal(
      ['compress', ...files, '-o', 'progress-out', '-c', '1', '--level', 'high'],
      {
        cwd: ws.dir,
        env: env(),
      },
    );
    await terminal.waitFor(/compress \d\/4 · (queued:|compressing)/);
    const { code, screen } = await terminal.done;
    expect(code, screen).toBe(0);
    expect(screen.match(/✔ \S*progress\/doc\d\.pdf → /g)).toHaveLength(4);
  });

  it('-o - refuses to write a PDF to the terminal (exit 2), and --force writes it anyway', async () => {
    await ws.file('tty.pdf', await labelledPdf('tty', 1));
    const refused = await pdnInTerminal(['compress', 'tty.pdf', '-o', '-'], { cwd: ws.dir, env: env() }).done;
    expect(refused.code, refused.screen).toBe(2);
    expect(refused.screen).toContain('-o - would write a binary PDF to the terminal');
    expect(refused.screen).not.toContain('%PDF-');

    const forced = await pdnInTerminal(['compress', 'tty.pdf', '-o', '-', '--force'], {
      cwd: ws.dir,
      env: env(),
    }).done;
    expect(forced.code, forced.screen).toBe(0);
    expect(forced.screen).toContain('%PDF-');
  });
});

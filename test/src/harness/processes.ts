// Which processes are still running for a server: tools it started whose command lines name its data
// folder. Used to check that a timeout or a cancel killed them (Linux /proc; empty elsewhere).
import { readdir, readFile } from 'node:fs/promises';

/** Command lines of running processes that mention `text`. */
export async function processesMentioning(text: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(text)) found.push(cmdline.replaceAll('\0', ' '));
  }
  return found;
}

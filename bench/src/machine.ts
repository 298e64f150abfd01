// What the figures were measured on ("Report the machine at the top of the results").
import { execFile } from 'node:child_process';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Machine {
  cpus: string;
  cores: number;
  memoryGiB: number;
  node: string;
  tools: Record<string, string>;
}

async function versionOf(command: string, args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args);
    // First line only, version number only: `qpdf version 11.3.0` and `tesseract 5.3.0` both say 11.3.0 / 5.3.0.
    const line = (stdout || stderr).split('\n')[0] ?? '';
    return /\d+(\.\d+)+/.exec(line)?.[0] ?? (line.trim() || 'unknown');
  } catch {
    return 'not installed';
  }
}

/** How busy the machine was as a row was measured, for the row's note. */
export function loadNote(): string {
  return `load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores`;
}

export async function describeMachine(): Promise<Machine> {
  const cpuList = cpus();
  return {
    cpus: cpuList[0]?.model ?? 'unknown',
    cores: cpuList.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    tools: {
      ghostscript: await versionOf('gs', ['--version']),
      qpdf: await versionOf('qpdf', ['--version']),
      tesseract: await versionOf('tesseract', ['--version']),
      pdftoppm: await versionOf('pdftoppm', ['-v']),
    },
  };
}

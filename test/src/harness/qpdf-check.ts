// "Every output is a valid PDF", judged by a second opinion besides pdf-lib: `qpdf --check`
// parses the whole file, every object and stream, and exits 0 only when it found nothing wrong.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface QpdfVerdict {
  ok: boolean;
  output: string;
}

export async function qpdfCheck(pdf: Uint8Array): Promise<QpdfVerdict> {
  const dir = await mkdtemp(join(tmpdir(), 'pdn-e2e-check-'));
  try {
    const path = join(dir, 'output.pdf');
    await writeFile(path, pdf);
    try {
      const { stdout, stderr } = await execFileAsync('qpdf', ['--check', path], { timeout: 60_000 });
      return { ok: true, output: stdout + stderr };
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string; message: string };
      return { ok: false, output: `${failed.stdout ?? ''}${failed.stderr ?? failed.message}` };
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// The key behind every signed download URL: PDN_SIGNING_SECRET when the operator sets one
// (several servers behind a balancer must share it), otherwise one generated on first start and kept
// in the data folder, readable by the server's user only, so URLs survive a restart.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const FILE_NAME = 'signing-secret';

export async function loadSigningSecret(dataDir: string, configured: string | undefined): Promise<string> {
  if (configured !== undefined) return configured;
  const path = join(dataDir, FILE_NAME);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  try {
    // 'wx': never overwrite a secret another process wrote first; 0600: no other local user can read it.
    await writeFile(path, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const secret = (await readFile(path, 'utf8')).trim();
  if (secret.length < 32) throw new Error(`${path} holds no usable secret: delete it to generate a new one`);
  return secret;
}

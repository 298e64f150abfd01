// LibreOffice makes two Unix sockets for each instance: the pipe the bridge connects through
// (`--accept=pipe,name=<name>`) and the one a second start of the same profile would find it by
// (`SingleOfficeIPC_<hash of the profile's URL>`). It makes them in /tmp whatever TMPDIR says, named
// `OSL_PIPE_<uid>_<name>`, and leaves them behind when it is killed, which is how every instance ends.
// An instance is recycled after some conversions, so a server that ran for weeks would fill /tmp with
// them: each instance's two are removed once it has gone.
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';

/** Where LibreOffice's sal library makes its pipes; fixed in its code, not taken from TMPDIR. */
const PIPE_FOLDER = '/tmp';

/**
 * LibreOffice's name for a profile's single-instance pipe: the MD5 of the profile's URL as UTF-16
 * code units, each byte in hexadecimal without its leading zero (desktop's CreateMD5FromString).
 */
function singleInstanceName(profileUrl: string): string {
  const digest = createHash('md5').update(Buffer.from(profileUrl, 'utf16le')).digest();
  return `SingleOfficeIPC_${[...digest].map((byte) => byte.toString(16)).join('')}`;
}

/** The two sockets of an instance accepting on `pipeName` with the profile at `profileUrl`. */
export function officePipePaths(pipeName: string, profileUrl: string): string[] {
  const uid = process.getuid?.() ?? 0;
  return [pipeName, singleInstanceName(profileUrl)].map((name) => `${PIPE_FOLDER}/OSL_PIPE_${uid}_${name}`);
}

/** Removes an ended instance's sockets; only a LibreOffice that is gone may lose them. */
export async function removeOfficePipes(pipeName: string, profileUrl: string): Promise<void> {
  await Promise.all(officePipePaths(pipeName, profileUrl).map((path) => rm(path, { force: true })));
}

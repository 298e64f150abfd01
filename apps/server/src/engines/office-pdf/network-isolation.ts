// A network namespace for LibreOffice where the kernel allows one (util-linux `unshare --net`, with a user
// namespace so that no privilege is needed): its only interface is a loopback left down, so a document's
// remote images, links, WEBSERVICE() calls or data sources reach nothing, not even this machine's own
// services. Where it is not allowed (a container that forbids user namespaces) LibreOffice runs in the
// server's namespace, held back by its profile's settings alone (profile.ts), and the log says so.
import { tmpdir } from 'node:os';
import { runTool } from '../run-tool.js';

const UNSHARE_ARGS = ['--net', '--map-root-user', '--'] as const;

/** The command prefix that runs a program without network, or `[]` where none can be made. */
export async function networkIsolation(unshare: string | undefined): Promise<readonly string[]> {
  if (unshare === undefined) return [];
  const prefix = [unshare, ...UNSHARE_ARGS];
  try {
    const probe = await runTool(unshare, [...UNSHARE_ARGS, 'true'], { cwd: tmpdir(), timeoutMs: 10_000 });
    return probe.exitCode === 0 ? prefix : [];
  } catch {
    return [];
  }
}

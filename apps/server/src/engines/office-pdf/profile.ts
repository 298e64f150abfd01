// LibreOffice's user profile: made once per server process, locked down, then read-only; each warm
// instance starts on a fresh copy of it, so nothing a document leaves in a profile (recent files, fonts
// it carried, autocorrect or style changes) outlives the instance that read it.
//
// The lockdown, as LibreOffice's configuration schema (officecfg/registry/schema) names it: macros never
// run (security level "very high", execution disabled; documents are also loaded with
// MacroExecutionMode NEVER_EXECUTE); links to other files and data sources are never updated on load
// and formulas are not recalculated on load, so WEBSERVICE() and external references keep their saved
// values (documents are also loaded with UpdateDocMode NO_UPDATE); links whose referer is untrusted are
// blocked; every internet access goes to a proxy on a port that nothing listens on (the network
// namespace, where there is one, already has no network); no recent-files list, no backups, no locks.
import { chmod, cp, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runTool } from '../run-tool.js';

type Value = boolean | number | string;

const SETTINGS: ReadonlyArray<[path: string, name: string, value: Value]> = [
  ['/org.openoffice.Office.Common/Security/Scripting', 'MacroSecurityLevel', 3],
  ['/org.openoffice.Office.Common/Security/Scripting', 'DisableMacrosExecution', true],
  ['/org.openoffice.Office.Common/Security/Scripting', 'BlockUntrustedRefererLinks', true],
  ['/org.openoffice.Office.Common/History', 'PickListSize', 0],
  ['/org.openoffice.Office.Common/Save/Document', 'CreateBackup', false],
  ['/org.openoffice.Office.Common/Misc', 'UseLocking', false],
  ['/org.openoffice.Office.Writer/Content/Update', 'Link', 0],
  ['/org.openoffice.Office.Calc/Content/Update', 'Link', 1],
  ['/org.openoffice.Office.Calc/Formula/Load', 'OOXMLRecalcMode', 1],
  ['/org.openoffice.Office.Calc/Formula/Load', 'ODFRecalcMode', 1],
  ['/org.openoffice.Inet/Settings', 'ooInetProxyType', 2],
  ['/org.openoffice.Inet/Settings', 'ooInetHTTPProxyName', '127.0.0.1'],
  ['/org.openoffice.Inet/Settings', 'ooInetHTTPProxyPort', 9],
  ['/org.openoffice.Inet/Settings', 'ooInetHTTPSProxyName', '127.0.0.1'],
  ['/org.openoffice.Inet/Settings', 'ooInetHTTPSProxyPort', 9],
  ['/org.openoffice.Inet/Settings', 'ooInetFTPProxyName', '127.0.0.1'],
  ['/org.openoffice.Inet/Settings', 'ooInetFTPProxyPort', 9],
  ['/org.openoffice.Inet/Settings', 'ooInetNoProxy', ''],
];

function xmlText(value: Value): string {
  return String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

/** registrymodifications.xcu: the settings a profile starts with (LibreOffice's own file format). */
export function registryModifications(): string {
  const items = SETTINGS.map(
    ([path, name, value]) =>
      `<item oor:path="${path}"><prop oor:name="${name}" oor:op="fuse"><value>${xmlText(value)}</value></prop></item>`,
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
    ...items,
    '</oor:items>',
    '',
  ].join('\n');
}

/**
 * The mode of every file under `dir`. Folders stay writable, so that the template can be removed by a
 * user who is not root; `cp` keeps modes, so copies are made writable again.
 */
async function setFileModes(dir: string, mode: number): Promise<void> {
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) await chmod(join(entry.parentPath, entry.name), mode);
  }
}

/**
 * Makes the template profile in `dir`: the settings written, then LibreOffice started on it once so
 * that it fills in the rest (its first start builds caches every instance would otherwise build), then
 * made read-only.
 */
export async function makeTemplateProfile(dir: string, soffice: string, timeoutMs: number): Promise<void> {
  await mkdir(join(dir, 'user'), { recursive: true });
  await writeFile(join(dir, 'user', 'registrymodifications.xcu'), registryModifications());
  const result = await runTool(
    soffice,
    [
      '--headless',
      '--norestore',
      '--terminate_after_init',
      `-env:UserInstallation=${pathToFileURL(dir).href}`,
    ],
    { cwd: dir, timeoutMs, env: { SAL_USE_VCLPLUGIN: 'svp' } },
  );
  if (result.exitCode !== 0)
    throw new Error(
      `LibreOffice could not make its profile (exit ${result.exitCode}): ${result.stderr.trim()}`,
    );
  await setFileModes(dir, 0o444);
}

/** A fresh, writable copy of the template for one instance. */
export async function copyProfile(template: string, dir: string): Promise<void> {
  await cp(template, dir, { recursive: true });
  await setFileModes(dir, 0o600);
  await chmod(dir, 0o700);
}

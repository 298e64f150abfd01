// The one way the suites launch a browser (the account area's tests launch the same):
// Debian's Chromium driven by playwright-core, nothing downloaded at run time. Where the package is
// not installed the suites skip, saying why.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Why browser suites cannot run here, or `undefined` when they can. */
export const browserMissing: string | undefined = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} is missing (apt-get install chromium)`;

/** Headless Chromium: no sandbox (containers run as root), no GPU, no calls home. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

// The command line of the server's Chromium. Playwright drives it over the DevTools protocol on the
// pipes it opens (fds 3 and 4, `--remote-debugging-pipe`): no port that another local user could
// reach. Playwright's own switches are left out (launched with `ignoreDefaultArgs`), so that the
// executable can be util-linux's setpriv in front of Chromium: the kernel's parent-death signal then
// ends the browser the moment the server dies, SIGKILL included, as every tool of the server does
// (processes/parent-death.ts); Playwright starts it in a process group of its own.
import { withParentDeathSignal } from '../../processes/parent-death.js';

/**
 * Every request a page makes is answered from the upload or refused by the page's own router
 * (page-router.ts). Behind that, whatever a router never sees (a WebSocket, a prefetch, a service
 * worker's fetch) is sent to a proxy that does not exist, loopback included (`<-loopback>` undoes
 * Chromium's implicit bypass of localhost), and WebRTC may not send UDP around the proxy: nothing
 * leaves the browser even where the router would be bypassed.
 */
const NO_NETWORK = [
  '--proxy-server=http://127.0.0.1:9',
  '--proxy-bypass-list=<-loopback>',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-domain-reliability',
  '--disable-sync',
  '--no-pings',
  '--dns-prefetch-disable',
];

const HEADLESS = [
  '--headless',
  '--no-startup-window',
  '--remote-debugging-pipe',
  // The server runs as whatever user its operator chose, root in containers, where Chromium's
  // sandbox cannot start; pages get no network and no file, and scripts are off unless asked for.
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-extensions',
  '--disable-default-apps',
  '--no-first-run',
  '--no-default-browser-check',
  '--mute-audio',
  '--hide-scrollbars',
  '--disable-breakpad',
  '--disable-crash-reporter',
  '--password-store=basic',
  '--use-mock-keychain',
  '--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication,InterestFeedContentSuggestions',
];

/** Nice value of the browser, as of every tool: document work never starves the event loop. */
const NICENESS = '10';

/**
 * The executable and arguments that start `chromium` with `profileDir` as its profile, through
 * coreutils' nice (Playwright hands out no process to lower the priority of afterwards).
 */
export function chromiumCommand(chromium: string, profileDir: string): [string, string[]] {
  const args = ['-n', NICENESS, chromium, ...HEADLESS, ...NO_NETWORK, `--user-data-dir=${profileDir}`];
  return withParentDeathSignal('nice', args, process.env.PATH ?? '/usr/bin:/bin');
}

// How the browser suites look at an account page: axe-core finds no accessibility violation, of any
// impact, at phone and desktop widths, and each width is saved as a screenshot to look at
// (test/.screenshots/account/). And how they reach a control from the keyboard: by Tab, its focus
// ring showing.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

export const SCREENSHOTS = fileURLToPath(new URL('../../.screenshots/account/', import.meta.url));
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
export const WIDTHS = {
  desktop: { width: 1280, height: 800 },
  // The narrowest phone in common use (an iPhone SE or mini).
  phone: { width: 375, height: 812 },
} as const;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core run inside the page; its violations, described, minor and moderate ones included. */
async function accessibilityProblems(page: Page): Promise<string[]> {
  // Through the DevTools protocol, which the page's Content-Security-Policy does not govern.
  await page.evaluate(AXE);
  const violations = (await page.evaluate(
    'axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations)',
  )) as AxeViolation[];
  return violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
}

/** Checks the page at both widths and saves a screenshot of each as `<name>-<width>.png`. */
export async function look(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  for (const [label, size] of Object.entries(WIDTHS)) {
    await page.setViewportSize(size);
    expect(await accessibilityProblems(page), `${name} at ${label} width`).toEqual([]);
    await page.screenshot({ path: `${SCREENSHOTS}${name}-${label}.png`, fullPage: true });
  }
  await page.setViewportSize(WIDTHS.desktop);
}

/**
 * Reaches `target` as a keyboard user does: Tab, from wherever the focus is (the top of a page just
 * loaded), until it has the focus, and checks that its focus ring is drawn. A control that Tab never
 * reaches, or reaches unseen, fails.
 */
export async function tabTo(page: Page, target: Locator, presses = 40): Promise<void> {
  for (let press = 0; press < presses; press += 1) {
    await page.keyboard.press('Tab');
    if (await target.evaluate((element) => element === element.ownerDocument.activeElement)) {
      const ring = await target.evaluate((element) => {
        const style = element.ownerDocument.defaultView?.getComputedStyle(element);
        return (
          style !== undefined && style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) > 0
        );
      });
      expect(ring, 'the focused control shows a focus ring').toBe(true);
      return;
    }
  }
  throw new Error(`Tab did not reach ${target} in ${presses} presses`);
}

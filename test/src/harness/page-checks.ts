// How the browser suites look at an account page: axe-core finds no accessibility violation, of any
// impact, at phone and desktop widths, and each width is saved as a screenshot to look at
// (test/.screenshots/account/).
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
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

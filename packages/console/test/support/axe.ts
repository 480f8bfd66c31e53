// The accessibility audit of the browser tests (docs/console.md, "Accessibility"): axe-core, run
// in the page on what it shows, with the WCAG 2 A and AA rules (contrast included). axe is put in
// the page through the DevTools protocol (Playwright's evaluate), which the console's
// Content-Security-Policy does not govern, so the page is audited with its real policy.
import axe from 'axe-core';
import type { Page } from 'playwright-core';

/** The rule tags run: WCAG 2.0, 2.1 and 2.2, levels A and AA. */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

interface Violation {
  id: string;
  help: string;
  nodes: Array<{ target: unknown[]; failureSummary?: string }>;
}

/** The WCAG A/AA violations on what the page shows now, one line per rule and element (none: `[]`). */
export async function audit(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  const violations = await page.evaluate(async (tags) => {
    const found = await (window as unknown as { axe: typeof axe }).axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return found.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }));
  }, WCAG_TAGS);
  return (violations as Violation[]).flatMap((v) =>
    v.nodes.map((n) => `${v.id} (${v.help}) at ${JSON.stringify(n.target)}: ${(n.failureSummary ?? '').replace(/\s+/g, ' ')}`),
  );
}

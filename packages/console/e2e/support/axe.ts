import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
let source: Promise<string> | undefined;

/** One violation as a test reports it: the rule, its impact, and where (the first few targets). */
export interface Violation { id: string; impact: string; help: string; targets: string[] }

/**
 * axe-core's serious and critical violations on the page as it is now. axe is put in the page by
 * `page.evaluate` (the DevTools protocol), not a <script> tag: the console's CSP (`script-src 'self'`) refuses
 * inline scripts, and it should stay refused in the test too.
 */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  source ??= readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  const axe = await source;
  // A string is evaluated as it is, through the protocol: no eval() in the page, which its CSP would refuse.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe);
  const violations = await page.evaluate(async () => {
    const run = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }> } }).axe;
    const result = await run.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact ?? 'unknown', help: v.help, targets: v.nodes.slice(0, 3).map((n) => String(n.target.join(' '))) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

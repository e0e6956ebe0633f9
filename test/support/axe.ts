/** A11Y-3: axe-core run in a page of the headless browser, its serious and critical violations as lines of text. */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
}

/** Evaluated through the debugging protocol, so the page's CSP still holds for the page itself. */
export async function axeAudit(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const result = (await page.evaluate(() =>
    (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<unknown> } }).axe.run((globalThis as unknown as { document: unknown }).document, { resultTypes: ['violations'] }),
  )) as AxeResult;
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id}: ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`);
}

/**
 * The report as a person sees it: rendered from a real tool-loop run, opened
 * from a file in headless Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core), checked, and photographed to test-results/report.png.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { agentMachine } from '../../src/machine/agent-machine.js';
import { machineGraph } from '../../src/machine/machine-graph.js';
import { renderTraceReport } from '../../src/report/index.js';
import { chromiumRequirement, externalBinary } from '../support/external-binary.js';
import { toolLoopTrace } from './support/tool-loop-trace.js';

const CHROMIUM = externalBinary(chromiumRequirement);
const SCREENSHOT = path.resolve(import.meta.dirname, '../../test-results/report.png');

let browser: Browser | undefined;
let dir: string | undefined;
afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(CHROMIUM === undefined)('the trace report in a browser', () => {
  it('shows the visited states, the steps and the timeline, fetches nothing, runs nothing from the trace', { timeout: 60_000 }, async () => {
    const trace = await toolLoopTrace({ hostile: true });
    dir = await mkdtemp(path.join(os.tmpdir(), 'loopchart-report-'));
    const file = path.join(dir, 'report.html');
    await writeFile(file, renderTraceReport(trace, machineGraph(agentMachine)));

    browser = await chromium.launch({
      executablePath: CHROMIUM!,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const page = await browser.newPage({ viewport: { width: 1680, height: 1000 } });
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(pathToFileURL(file).href);

    expect(requests).toEqual([pathToFileURL(file).href]);
    expect(errors).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('img, script, iframe').count()).toBe(0);

    const state = (id: string) => page.locator(`svg.statechart g.state[data-state="${id}"]`);
    await expect.poll(() => state('running.toolExec').isVisible()).toBe(true);
    expect(await state('running.toolExec').getAttribute('data-visited')).toBe('true');
    expect(await state('running.toolExec').getAttribute('data-visits')).toBe('2');
    expect(await state('running.awaitingApproval').getAttribute('data-visited')).toBe('false');
    expect(await state('running.llm').getAttribute('data-visited')).toBe('true');
    const stroke = (id: string) => state(id).locator(':scope > rect').evaluate((rect) => getComputedStyle(rect).stroke);
    expect(await stroke('running.toolExec')).toBe('rgb(37, 99, 235)');
    expect(await stroke('running.awaitingApproval')).not.toBe(await stroke('running.toolExec'));
    const taken = page.locator('svg.statechart g.transition-group[data-from="running.deciding"][data-to="running.toolExec"]');
    expect(await taken.getAttribute('data-visited')).toBe('true');
    expect(await taken.locator('path').evaluate((path) => getComputedStyle(path).strokeWidth)).toBe('2.4px');

    const steps = page.locator('article.step');
    expect(await steps.count()).toBe(3);
    expect(await steps.nth(0).locator('.step-text').textContent()).toBe('Looking up Oslo and Bergen.');
    expect(await steps.nth(0).locator('tr.tool-call').count()).toBe(2);
    expect(await steps.nth(1).locator('tr.tool-call .status').textContent()).toBe('error');
    expect(await steps.nth(2).locator('.step-text').textContent()).toContain('<script>window.__pwned = 1</script>');
    expect(await page.locator('.outcome').textContent()).toBe('completed');

    const bars = page.locator('.lane[data-state="running.toolExec"] .bar');
    expect(await bars.count()).toBe(2);
    expect((await bars.first().boundingBox())!.width).toBeGreaterThan(0);

    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
  });
});

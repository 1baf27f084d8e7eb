/**
 * A real browser for console tests: Debian's chromium (or CHROMIUM_PATH) driven by playwright-core, with
 * what went wrong on a page collected (console errors and warnings, uncaught exceptions, failed requests,
 * HTTP errors), axe-core run in the page, and screenshots kept under test/screenshots/ (git-ignored).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { onTestFinished } from 'vitest';
import { REPO } from './stdio-gateway.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = resolve(REPO, 'test/screenshots');

/** Why browser tests cannot run here, or null when they can. */
export function browserMissing(): string | null {
  return existsSync(CHROMIUM) ? null : `no chromium executable at ${CHROMIUM} (install Debian's chromium or set CHROMIUM_PATH)`;
}

/** Builds the console's pages when dist/ui is missing (npm test builds them before vitest runs). */
export async function ensureUiBuilt(): Promise<void> {
  if (existsSync(resolve(REPO, 'dist/ui/index.html'))) return;
  await promisify(execFile)(process.execPath, [resolve(REPO, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'ui/vite.config.ts'], { cwd: REPO });
}

/** Launches the browser; it is closed when the test ends. */
export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  onTestFinished(() => browser.close());
  return browser;
}

/** Everything that went wrong on a page since the last `take()`. */
export interface PageProblems {
  take(): string[];
}

/**
 * Collects a page's console errors and warnings, uncaught exceptions, failed requests and 4xx/5xx answers.
 * A GET the page aborted itself is not a failure: the live event stream when the page goes away, or an API
 * read superseded by a newer one (a tick or an action re-fetches while the last fetch is in flight).
 */
export function watchPage(page: Page): PageProblems {
  let problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  page.on('requestfailed', (r) => {
    const error = r.failure()?.errorText ?? '';
    if (!(error === 'net::ERR_ABORTED' && r.method() === 'GET' && r.url().includes('/ui/api/'))) problems.push(`request failed: ${r.method()} ${r.url()} ${error}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.request().method()} ${r.url()}`);
  });
  return {
    take() {
      const taken = problems;
      problems = [];
      return taken;
    },
  };
}

const AXE = readFileSync(resolve(REPO, 'node_modules/axe-core/axe.min.js'), 'utf8');

/** One axe-core violation, as the assertion prints it. */
export interface Violation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: string[];
}

/**
 * Runs axe-core in the page and returns its serious and critical violations. The page's CSP refuses inline
 * scripts (so `addScriptTag({content})` is blocked, as it should be); axe's source is evaluated through the
 * DevTools protocol instead, which the CSP does not govern, so the page is checked with its real CSP on.
 */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const result = await axe.run();
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => String(n.target)) }));
  });
}

/** Saves a full-page screenshot as test/screenshots/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = resolve(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

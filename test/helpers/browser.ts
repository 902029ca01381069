// Debian's chromium, driven by playwright-core, for the room page's tests:
// never a downloaded browser. When /usr/bin/chromium is missing, a test run
// as root installs it with apt-get once; otherwise it fails with one line
// saying how. Each page is watched: every request it makes, every console
// error, every uncaught error and every dialog (an alert is code that ran).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

/** Where the tests save screenshots of the page's main states (git-ignored). */
export const SCREENSHOTS = fileURLToPath(new URL('../../test-screenshots/', import.meta.url));

let installTried = false;

function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  if (process.getuid?.() === 0 && !installTried) {
    installTried = true;
    try {
      execFileSync('apt-get', ['update'], { stdio: 'ignore' });
      execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'ignore' });
    } catch {
      // Said below.
    }
  }
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `the room page's tests need Debian chromium at ${CHROMIUM}: run apt-get install -y chromium as root`,
    );
  }
}

export function launchChromium(): Promise<Browser> {
  ensureChromium();
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
}

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** Every URL the page requested. */
  requests: string[];
  /** Console errors and uncaught errors, as text. */
  errors: string[];
  /** Messages of dialogs (alert, confirm, prompt) something opened; each is dismissed. */
  dialogs: string[];
  /** Saves a screenshot as test-screenshots/NAME.png. */
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function watchedPage(
  browser: Browser,
  options: { colorScheme?: 'light' | 'dark'; width?: number; height?: number } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({
    colorScheme: options.colorScheme ?? 'light',
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
  });
  const page = await context.newPage();
  const watched: WatchedPage = {
    context,
    page,
    requests: [],
    errors: [],
    dialogs: [],
    async screenshot(name) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
    },
    close: () => context.close(),
  };
  page.on('request', (request) => watched.requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') watched.errors.push(message.text());
  });
  page.on('pageerror', (error) => watched.errors.push(`uncaught: ${error.message}`));
  page.on('dialog', (dialog) => {
    watched.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return watched;
}

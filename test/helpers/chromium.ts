import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium package (`apt-get install chromium`; .ci/run installs it). No browser is downloaded. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags for a quiet, offline, throw-away headless Chromium. */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A headless system Chromium with a fresh profile; `close()` also deletes the profile. */
export interface Chromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Launch the system Chromium through playwright-core with a fresh `--user-data-dir` (a new temp
 * profile each time). Throws, never skips, when the browser is missing: the browser tests must
 * fail loudly where Chromium is not installed.
 */
export async function launchChromium(
  options: { viewport?: { width: number; height: number }; locale?: string; colorScheme?: 'light' | 'dark' } = {},
): Promise<Chromium> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH`,
    );
  const profile = mkdtempSync(path.join(os.tmpdir(), 'eunoe-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ARGS,
    viewport: options.viewport ?? { width: 1280, height: 800 },
    locale: options.locale ?? 'en-US',
    timezoneId: 'UTC',
    colorScheme: options.colorScheme ?? 'light',
    offline: false,
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A browser for the tests of one file: `launch()` (in beforeAll) never throws, so a missing browser fails every test
 * here through `newPage()` (counted as failures in CI's summary), never skips them; `close()` in afterAll.
 */
export function chromiumForTests(options: Parameters<typeof launchChromium>[0] = {}) {
  let browser: Chromium | undefined;
  let launchError: Error | undefined;
  return {
    async launch(): Promise<void> {
      browser = await launchChromium(options).catch((error: Error) => {
        launchError = error;
        return undefined;
      });
    },
    async newPage(): Promise<Page> {
      if (launchError || !browser) throw launchError ?? new Error('the browser was not launched');
      return browser.context.newPage();
    },
    async close(): Promise<void> {
      await browser?.close();
    },
  };
}

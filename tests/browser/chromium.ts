import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/** Debian's Chromium (`apt-get install chromium`, as .ci/run does); no browser is downloaded. */
export function chromiumPath(): string | undefined {
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      const found = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
      if (found && existsSync(found)) return found;
    } catch {
      // not on PATH
    }
  }
  return undefined;
}

export function launch(executablePath: string): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return puppeteer.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
}

/** What a page did while it was open, from the browser's own events. */
export interface PageLog {
  requests: string[];
  scriptErrors: string[];
  consoleErrors: string[];
  dialogs: string[];
  cspViolations: () => Promise<string[]>;
}

/** A page that records every request, script error, console error, dialog and CSP violation. */
export async function watchedPage(browser: Browser): Promise<{ page: Page; log: PageLog }> {
  const page = await browser.newPage();
  const log: PageLog = {
    requests: [],
    scriptErrors: [],
    consoleErrors: [],
    dialogs: [],
    cspViolations: () => page.evaluate(() => (window as unknown as { violations: string[] }).violations),
  };
  page.on('request', (request) => log.requests.push(request.url()));
  page.on('pageerror', (error) => log.scriptErrors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') log.consoleErrors.push(message.text());
  });
  page.on('dialog', (dialog) => {
    log.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  // Installed by the debugger before any page script, so the page's CSP does not apply to it.
  await page.evaluateOnNewDocument(() => {
    const violations: string[] = [];
    (window as unknown as { violations: string[] }).violations = violations;
    document.addEventListener('securitypolicyviolation', (event) => violations.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  return { page, log };
}

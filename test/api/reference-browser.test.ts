import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { AREAS } from '../../services/registry';
import { startApi, type ApiFixture } from '../support/api';

/**
 * The API reference as an integrator sees it: GET /docs from the local gateway in a real
 * headless Chromium (Debian's package, driven by playwright-core; nothing is downloaded),
 * rendered by Redoc from GET /v1/openapi.json. Every area of the registry is there with all
 * its operations, nothing is loaded from another origin (the page's CSP refuses it), the page
 * logs no other error, and a screenshot is left in test-output/ for people to look at.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT = join('test-output', 'api-reference.png');
const hasChromium = existsSync(CHROMIUM);

if (!hasChromium) {
  console.warn(
    `SKIPPED test/api/reference-browser.test.ts: no Chromium at ${CHROMIUM}, so the API reference was not checked in a browser. ` +
      'Install Debian\'s package (apt-get install chromium; .ci/run does) or set CHROMIUM_PATH.',
  );
}

(hasChromium ? describe : describe.skip)('the API reference in headless Chromium', () => {
  let api: ApiFixture;
  let browser: Browser;

  beforeAll(async () => {
    api = await startApi();
    // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('renders the operations of every area from the OpenAPI document, loading nothing from elsewhere', async () => {
    const document = (await (await fetch(`${api.gateway.url}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>> };
    const operationsByArea = new Map<string, string[]>();
    for (const methods of Object.values(document.paths)) {
      for (const operation of Object.values(methods)) {
        if (!operation.operationId || !operation.tags) continue;
        operationsByArea.set(operation.tags[0], [...(operationsByArea.get(operation.tags[0]) ?? []), operation.operationId]);
      }
    }
    expect([...operationsByArea.keys()].sort()).toEqual(AREAS.map((a) => a.name).sort());

    const page = await browser.newPage({ viewport: { width: 1440, height: 1600 } });
    const problems: string[] = [];
    const isForeign = (url: string) => !url.startsWith(api.gateway.url) && !url.startsWith('blob:') && !url.startsWith('data:');
    const foreignLoaded: string[] = [];
    const foreignBlocked: string[] = [];
    page.on('console', (message) => {
      // The page's CSP refusing another origin is the protection working (asserted below).
      if (message.type() === 'error' && !/violates the following Content Security Policy directive/.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('response', (res) => {
      if (isForeign(res.url())) foreignLoaded.push(res.url());
      if (res.status() >= 400) problems.push(`${res.status()} ${res.url()}`);
    });
    page.on('requestfailed', (request) => {
      if (isForeign(request.url())) foreignBlocked.push(`${request.url()} ${request.failure()?.errorText}`);
    });

    const response = await page.goto(`${api.gateway.url}/docs`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    const lastOperation = [...operationsByArea.values()].flat().at(-1)!;
    await page.waitForSelector(`[data-section-id="operation/${lastOperation}"]`, { state: 'attached', timeout: 90_000 });

    const rendered = await page.$$eval('[data-section-id^="operation/"]', (elements) => elements.map((e) => e.getAttribute('data-section-id')!.slice('operation/'.length)));
    const tags = await page.$$eval('[data-section-id^="tag/"]', (elements) => elements.map((e) => e.getAttribute('data-section-id')!.slice('tag/'.length)));
    for (const area of AREAS) {
      expect({ area: area.name, tag: tags.includes(area.name) }).toEqual({ area: area.name, tag: true });
      const missing = (operationsByArea.get(area.name) ?? []).filter((id) => !rendered.includes(id));
      expect({ area: area.name, missing }).toEqual({ area: area.name, missing: [] });
    }
    // The menu names every area.
    const menu = await page.locator('[role="navigation"], .menu-content').first().innerText();
    for (const area of AREAS) expect(menu.toLowerCase()).toContain(area.name.toLowerCase());

    mkdirSync('test-output', { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(10_000);
    // Nothing from another origin reaches the page. Redoc's menu footer links Redocly's logo
    // from its CDN: the page's CSP (img-src 'self' data:) refuses it, and Redoc then hides it.
    expect(foreignLoaded).toEqual([]);
    for (const blocked of foreignBlocked) expect(blocked).toMatch(/ (csp|net::ERR_BLOCKED_BY_CSP)$/);
    expect(problems).toEqual([]);
  }, 150_000);
});

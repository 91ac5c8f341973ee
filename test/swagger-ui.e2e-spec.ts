import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { ADMIN_KEY, TestApp } from './support/test-app.js';

/** Debian's Chromium; `.ci/run` installs it. The screenshot is kept in test/artifacts/. */
const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(process.cwd(), 'test', 'artifacts');

describe('Swagger UI in a real browser (e2e)', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    t = await TestApp.start();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.setDefaultTimeout(15_000);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Swagger UI's block of one operation (ids are `operations-<tag>-<operationId>`). */
  const operation = (tag: string, operationId: string): Locator => page.locator(`#operations-${tag.replaceAll(' ', '_')}-${operationId}`);

  async function authorize(scheme: string, value: string): Promise<void> {
    await page.locator('.auth-wrapper .authorize').first().click();
    const section = page.locator('.modal-ux .auth-container').filter({ hasText: scheme });
    await section.locator('input').fill(value);
    await section.locator('button.authorize').click();
    await page.locator('.modal-ux .close-modal').click();
  }

  /** Opens an operation, presses "Try it out", lets `fill` set it up, executes, and answers the JSON shown. */
  async function tryItOut(block: Locator, fill: (block: Locator) => Promise<void> = async () => undefined): Promise<{ status: number; body: any }> {
    await block.locator('.opblock-summary').first().click();
    // tryItOutEnabled opens operations ready to edit; press "Try it out" only if it did not.
    await block.locator('.try-out__btn').waitFor();
    if ((await block.locator('.execute').count()) === 0) await block.locator('.try-out__btn').click();
    await fill(block);
    await block.locator('.execute').click();
    const row = block.locator('.live-responses-table .response').first();
    await row.waitFor({ timeout: 15_000 });
    const status = Number((await row.locator('.response-col_status').innerText()).trim());
    const text = await row.locator('.response-col_description pre').first().innerText();
    return { status, body: JSON.parse(text) };
  }

  it('authorizes, creates a token and a zipkin-tracing filter, sends a span and shows the open incident', async () => {
    await page.goto(`${t.baseUrl}/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 20_000 });
    await authorize('admin-key', ADMIN_KEY);

    const token = await tryItOut(operation('API tokens', 'TokensController_create'), async (block) => {
      await block.locator('textarea.body-param__text').fill(JSON.stringify({ name: 'from Swagger UI' }));
    });
    expect(token.status).toBe(201);
    expect(token.body.token).toMatch(/^iit_/);

    const filter = await tryItOut(operation('API filters', 'FiltersController_create'), async (block) => {
      // The request-body examples dropdown offers one entry per integration template.
      await block.locator('.body-param-options select, .examples-select select').first().selectOption({ label: 'Template: Zipkin tracing' });
      const textarea = block.locator('textarea.body-param__text');
      const example = JSON.parse(await textarea.inputValue());
      expect(example).toEqual({ tokenId: '<token id>', template: 'zipkin-tracing' });
      await textarea.fill(JSON.stringify({ ...example, tokenId: token.body.id }));
    });
    expect(filter.status).toBe(201);
    expect(filter.body.template).toBe('zipkin-tracing');

    await authorize('api-token', token.body.token);
    const intake = await tryItOut(operation('Intake', 'IntakeController_trace'), async (block) => {
      await block.locator('textarea.body-param__text').fill(JSON.stringify({ traceId: 'swagger-ui-trace', name: 'checkout', duration: 1200, status: 'running' }));
    });
    expect(intake.status).toBe(202);
    expect(intake.body.payloads[0].filters[0].action).toBe('created');

    const incidents = await tryItOut(operation('Incidents', 'IncidentsController_list'), async (block) => {
      await block.locator('tr[data-param-name="status"] select').selectOption('open');
    });
    expect(incidents.status).toBe(200);
    expect(incidents.body.items).toEqual([expect.objectContaining({ title: 'checkout', mappedValue: 'swagger-ui-trace', status: 'open' })]);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'swagger-ui.png'), fullPage: false });

    // The authorization survives a reload (persisted in the browser).
    await page.reload();
    await page.locator('.opblock').first().waitFor();
    expect(await page.locator('.auth-wrapper .authorize.locked').count()).toBe(1);
  }, 90_000);
});

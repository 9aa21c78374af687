/**
 * End to end through a real browser: the local stack (in memory, fake providers) serves the built
 * dashboard; Chromium, driven by playwright-core, checks the Overview charts, a guardrail trip and its
 * Resume, key creation, the Sessions page, and saves a screenshot of every page under
 * test-output/screenshots/.
 *
 * Needs nothing installed by hand: it builds `dashboard/dist` when that is missing or stale
 * (local/dashboard-build.ts) and drives a system Chrome/Chromium if there is one, else the Chromium packed
 * in the `@sparticuz/chromium` devDependency (./browser.ts). See docs/dashboard.md, "End-to-end test".
 */
import OpenAI from 'openai';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { parseApiKey } from '../../core/keys';
import { startLocalStack, type LocalStack } from '../../local/stack';
import { findBrowser } from './browser';
import { ensureDashboardBuilt } from '../../local/dashboard-build';

const ROOT = resolve(__dirname, '../..');
const DASHBOARD_DIR = join(ROOT, 'dashboard', 'dist');
const SCREENSHOTS = join(ROOT, 'test-output', 'screenshots');
/** Playwright's auto-waiting bound for anything the page has to fetch and draw. */
const UI_TIMEOUT = 8_000;
// Per test (beforeAll has its own): the file's tests take ~15 s on an idle 2-core machine; the bound
// leaves room for a machine busy with other work (the loop test alone took 15 s at load 20).
jest.setTimeout(30_000);

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
/** What recharts draws for data: area and line paths, and bars (rectangle paths). */
const DATA_SHAPES = 'path.recharts-area-area, path.recharts-line-curve, path.recharts-rectangle';

let stack: LocalStack | undefined;
let browser: Browser | undefined;
let page: Page;
const pageErrors: string[] = [];

function requireStack(): LocalStack {
  if (!stack) throw new Error('the local stack did not start (see beforeAll)');
  return stack;
}

async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const s = requireStack();
  const res = await fetch(`${s.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${s.idToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(json)}`);
  return json;
}

function openai(apiKey: string, headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({
    apiKey: 'sk-test',
    baseURL: `${requireStack().proxyUrl}/openai/v1`,
    defaultHeaders: { 'Service-API-Key': apiKey, ...headers },
    maxRetries: 0,
    timeout: 10_000,
  });
}

/** Deterministic pseudo-random numbers (mulberry32), so every run seeds the same spread. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Who calls what, and how much: [model, provider, featureId, projectId, prompt range, completion range, weight]. */
const WORKLOADS = [
  ['gpt-4o-mini', 'openai', 'support-chat', 'helpdesk', [2_000, 16_000], [200, 1_500], 5],
  ['gpt-4o', 'openai', 'summarize', 'helpdesk', [10_000, 80_000], [800, 4_000], 3],
  ['claude-sonnet-4-20250514', 'anthropic', 'code-review', 'platform', [20_000, 150_000], [1_000, 6_000], 3],
  ['claude-haiku-4-5', 'anthropic', 'triage', 'platform', [3_000, 25_000], [300, 2_000], 2],
  ['gemini-2.5-flash', 'gemini', 'search-rerank', 'checkout-bot', [5_000, 60_000], [100, 1_000], 2],
] as const;

/**
 * A realistic spread of ingest events over the last 18 hours: an event every 4–16 minutes, models
 * weighted by use, every prompt size different (so no loop or context-growth pattern), and none in the
 * last three minutes (so the proxy calls below are the key's only requests of the last minute: layer 4
 * allows 10).
 */
function seedEvents(now: number) {
  const next = random(20260409);
  const between = (lo: number, hi: number) => Math.round(lo + next() * (hi - lo));
  const totalWeight = WORKLOADS.reduce((sum, w) => sum + w[6], 0);
  const events = [];
  for (let ts = now - 3 * 60_000, i = 0; ts > now - 18 * 3_600_000; ts -= between(4, 16) * 60_000, i++) {
    let pick = next() * totalWeight;
    const w = WORKLOADS.find((x) => (pick -= x[6]) < 0) ?? WORKLOADS[0];
    const [model, provider, featureId, projectId, prompt, completion] = w;
    events.push({
      model,
      provider,
      featureId,
      projectId,
      eventId: `evt_e2e_seed_${i}`,
      timestamp: new Date(ts).toISOString(),
      usage: {
        prompt_tokens: between(prompt[0], prompt[1]),
        completion_tokens: between(completion[0], completion[1]),
      },
    });
  }
  return events.reverse();
}

/** Waits until the chart has drawn at least one data shape with a non-empty box; returns how many. */
async function expectChartDrawn(testId: string): Promise<number> {
  const shapes = page.getByTestId(testId).locator(DATA_SHAPES).filter({ visible: true });
  await shapes.first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
  return shapes.count();
}

/** No spinner left on the page: every section has its data (or its error). */
async function settled(p: Page = page): Promise<void> {
  await p.locator('.status-loading').first().waitFor({ state: 'detached', timeout: UI_TIMEOUT });
}

async function screenshot(name: string, p: Page = page): Promise<void> {
  await settled(p);
  await p.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true, animations: 'disabled' });
}

/** A tab that records uncaught exceptions and console errors (the last test expects none). */
async function newPage(viewport: { width: number; height: number }): Promise<Page> {
  if (!browser) throw new Error('Chromium did not start (see beforeAll)');
  const p = await browser.newPage({ viewport });
  p.on('pageerror', (err) => pageErrors.push(`pageerror: ${err.message}`));
  p.on('console', (msg) => {
    if (msg.type() === 'error') pageErrors.push(`console.error: ${msg.text()}`);
  });
  return p;
}

async function goTo(title: string, heading: string): Promise<void> {
  await page.locator('#main-nav').getByRole('link', { name: title, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor({ timeout: UI_TIMEOUT });
}

beforeAll(async () => {
  // Both at most once per machine state: a fresh clone builds (~25 s) and inflates Chromium (~4 s).
  ensureDashboardBuilt(ROOT);
  const chromiumBinary = await findBrowser();
  console.log(`e2e browser: ${chromiumBinary.executablePath} (${chromiumBinary.source})`);
  await mkdir(SCREENSHOTS, { recursive: true });
  stack = await startLocalStack({
    memory: true,
    apiPort: 0,
    proxyPort: 0,
    mockProviders: true,
    dashboardDir: DASHBOARD_DIR,
  });

  // Caps above the seeded spend (~$10 over 18 h, under the daily soft cap even when all of it falls on
  // one UTC day), so the meters and cap lines show without anything tripping.
  await api('PUT', '/v1/budget', {
    budget: {
      dailySoftLimitUsd: 15,
      dailyLimitUsd: 25,
      monthlySoftLimitUsd: 250,
      monthlyLimitUsd: 400,
      action: 'block',
    },
  });
  const events = seedEvents(Date.now());
  for (let i = 0; i < events.length; i += 100) {
    const res = await fetch(`${stack.apiUrl}/api/ingest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: stack.apiKey, events: events.slice(i, i + 100) }),
    });
    if (res.status !== 200) throw new Error(`ingest → ${res.status} ${await res.text()}`);
  }
  // A few live calls through the proxy with the official client, each a different prompt.
  const client = openai(stack.apiKey, { 'x-spendguard-feature': 'support-chat' });
  for (const [model, prompt] of [
    ['gpt-4o-mini', 'Summarize ticket #4521 in two sentences.'],
    ['gpt-4o', 'Draft a polite reply to a customer asking for a refund on order 8812.'],
    ['gpt-4o-mini', 'Classify this message: "my invoice shows the wrong VAT number".'],
  ] as const) {
    await client.chat.completions.create({ model, messages: [{ role: 'user', content: prompt }] });
  }
  await stack.drain();
  await stack.runForecasts();

  browser = await chromium.launch({
    executablePath: chromiumBinary.executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    timeout: 15_000,
  });
  page = await newPage(DESKTOP);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('the dashboard in Chromium against the local stack', () => {
  it('opens the overview with the seeded spend, forecast and models drawn', async () => {
    const s = requireStack();
    // Nothing tripped while seeding: the spread is below every guardrail's threshold.
    expect(await api('GET', '/v1/flags')).toEqual({ flags: [] });
    await page.goto(`${s.dashboardUrl}#/overview`);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor({ timeout: UI_TIMEOUT });
    for (const chart of ['spend-chart', 'forecast-chart', 'model-chart', 'provider-chart', 'hourly-chart']) {
      expect(await expectChartDrawn(chart)).toBeGreaterThan(0);
    }
    // The seeded models are named on the model chart.
    const models = page.getByTestId('model-chart');
    for (const model of ['gpt-4o-mini', 'claude-sonnet-4', 'gemini-2.5-flash']) {
      await models.getByText(model).first().waitFor({ timeout: UI_TIMEOUT });
    }
    await settled();
    await expect(page.getByTestId('flag-banner').count()).resolves.toBe(0);
    await screenshot('overview');
  });

  it('shows the kill flag of a loop tripped through the proxy, and Resume clears it at the edge', async () => {
    const s = requireStack();
    const agent = openai(s.apiKey, { 'x-spendguard-session': 'e2e-agent-loop' });
    const ask = (content: string) =>
      agent.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] });
    for (let i = 0; i < 4; i++) await ask('retry the failing deployment step');
    await s.drain();

    await page.reload();
    const banner = page.getByTestId('flag-banner');
    await banner.waitFor({ timeout: UI_TIMEOUT });
    await expect(banner.locator('.flag-trigger').textContent()).resolves.toBe('token_loop_identical');
    await expect(banner.textContent()).resolves.toContain('SUSPENDED');
    await screenshot('overview-flagged');

    // The edge refuses the key while the flag stands (its cache lives ~1 s).
    await new Promise((r) => setTimeout(r, 1_200));
    await expect(ask('what failed in the last run?')).rejects.toMatchObject({ status: 429 });

    await page.getByTestId('resume-button').click();
    await banner.waitFor({ state: 'detached', timeout: UI_TIMEOUT });
    expect(await api('GET', '/v1/flags')).toEqual({ flags: [] });

    await new Promise((r) => setTimeout(r, 1_200));
    const answer = await ask('summarize the deployment log instead');
    expect(answer.usage?.prompt_tokens).toBeGreaterThan(0);
    await s.drain();
  });

  it('creates an API key: the secret is shown once and the prefix is listed', async () => {
    await goTo('API keys', 'API keys');
    await page.getByLabel('Key name').fill('e2e-browser');
    await page.getByRole('button', { name: 'Create key' }).click();
    const panel = page.getByTestId('new-key');
    await panel.waitFor({ timeout: UI_TIMEOUT });
    const secret = await panel.getByLabel('New API key').inputValue();
    const parsed = parseApiKey(secret);
    if (!parsed.ok) throw new Error(`the page showed something that is not an API key: ${secret}`);
    const row = page.getByTestId('key-row').filter({ hasText: parsed.prefix });
    await row.waitFor({ timeout: UI_TIMEOUT });
    await expect(row.textContent()).resolves.toContain('e2e-browser');
    await screenshot('keys-created');

    await panel.getByRole('button', { name: /hide the key/ }).click();
    await panel.waitFor({ state: 'detached', timeout: UI_TIMEOUT });
    await page.getByTestId('key-row').nth(1).waitFor({ timeout: UI_TIMEOUT });
    expect(await page.getByTestId('key-row').count()).toBe(2);
    // Gone for good: not in the page, not after a reload.
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await row.waitFor({ timeout: UI_TIMEOUT });
    expect(await page.content()).not.toContain(secret);
    await screenshot('keys');
  });

  it('shows the ledger, the guardrails with the trip, and the budget caps', async () => {
    await goTo('Ledger', 'Ledger');
    await page.getByTestId('ledger-row').first().waitFor({ timeout: UI_TIMEOUT });
    expect(await page.getByTestId('ledger-row').count()).toBeGreaterThanOrEqual(20);
    // Newest first: the proxy's calls (the resumed one last) lead, the ingested spread follows.
    await expect(page.getByTestId('ledger-row').first().textContent()).resolves.toMatch(/Proxy/);
    await page
      .getByTestId('ledger-row')
      .filter({ hasText: 'Ingest' })
      .first()
      .waitFor({ timeout: UI_TIMEOUT });
    await screenshot('ledger');

    await goTo('Guardrails', 'Guardrails');
    // The trip of the loop above: its label and the session the proxy saw in x-spendguard-session.
    const trip = page.getByTestId('trip-row').filter({ hasText: 'e2e-agent-loop' });
    await trip.first().waitFor({ timeout: UI_TIMEOUT });
    await expect(trip.first().textContent()).resolves.toContain('Identical-prompt loop');
    await screenshot('guardrails');

    await goTo('Budgets', 'Budgets');
    const hardCap = page.getByLabel('Daily hard cap (USD)');
    await hardCap.waitFor({ timeout: UI_TIMEOUT });
    await expect(hardCap.inputValue()).resolves.toBe('25');
    await screenshot('budgets');
  });

  it('draws the overview on a phone-sized screen', async () => {
    const phone = await newPage(PHONE);
    try {
      await phone.goto(`${requireStack().dashboardUrl}#/overview`);
      await phone
        .getByTestId('spend-chart')
        .locator(DATA_SHAPES)
        .filter({ visible: true })
        .first()
        .waitFor({ timeout: UI_TIMEOUT });
      await screenshot('overview-phone', phone);
    } finally {
      await phone.close();
    }
  });

  it('shows the looping agent on the Sessions page: its calls, prompt growth, repeats and trip', async () => {
    await goTo('Sessions', 'Sessions');
    const card = page.getByTestId('session-card').filter({ hasText: 'e2e-agent-loop' });
    await card.first().waitFor({ timeout: UI_TIMEOUT });
    // Four identical prompts, then one after Resume (the same x-spendguard-session).
    await expect(card.getByTestId('session-calls').textContent()).resolves.toBe('5');
    await expect(card.getByTestId('session-repeats').textContent()).resolves.toMatch(/× 4/);
    await expect(card.getByTestId('session-trip').textContent()).resolves.toContain('Identical-prompt loop');
    // Identical prompts draw a flat line, whose SVG box has no height (never "visible" to Playwright):
    // wait for the line's point markers instead, one per call.
    const chart = card.getByTestId('prompt-growth-chart');
    await chart.locator('circle.recharts-line-dot').first().waitFor({ timeout: UI_TIMEOUT });
    await expect(chart.locator('circle.recharts-line-dot').count()).resolves.toBe(5);
    await expect(chart.locator('path.recharts-line-curve').count()).resolves.toBe(1);
    await screenshot('sessions');
  });

  it('shows the Audit page: the budget change with who, before and after, and a member’s refused attempt', async () => {
    const s = requireStack();
    // A member (local.json idTokens.member) tries to zero the rates: refused, and recorded.
    const refused = await fetch(`${s.apiUrl}/v1/pricing/rates`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${s.idTokens.member}`, 'content-type': 'application/json' },
      body: JSON.stringify({ multiplier: 0 }),
    });
    expect(refused.status).toBe(403);

    await goTo('Audit', 'Audit');
    const budget = page.getByTestId('audit-row').filter({ hasText: 'Budget or policy changed' });
    await budget.first().waitFor({ timeout: UI_TIMEOUT });
    await expect(budget.first().getByTestId('audit-actor').textContent()).resolves.toBe(
      'you@localhost (admin)',
    );
    await expect(budget.first().getByTestId('audit-after').textContent()).resolves.toContain(
      '"dailyLimitUsd":25',
    );
    const denied = page.getByTestId('audit-row').filter({ hasText: 'Refused: role too low' });
    await denied.first().waitFor({ timeout: UI_TIMEOUT });
    await expect(denied.first().textContent()).resolves.toContain('member@localhost (member)');
    await expect(denied.first().textContent()).resolves.toContain('PUT /v1/pricing/rates');
    await screenshot('audit');
  });

  it('logged no errors in the browser', () => {
    expect(pageErrors).toEqual([]);
  });
});

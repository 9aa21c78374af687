/**
 * Issue 13 "must show": a reconciliation run on the local stack with the mock providers. Calls through
 * the proxy (official `openai` and `@anthropic-ai/sdk` clients) and through the SDK agree with the
 * providers' own reports; calls made straight to the mock providers show up as untracked spend within
 * 1 %; nothing is overcounted. The reports are read one day bucket per page, oldest first, and every call
 * is today's: a runner that did not follow `next_page` would miss all of them.
 */
import Anthropic from '@anthropic-ai/sdk';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { flush as flushSdk, shutdown as shutdownSdk, wrapFetch } from '../sdk/src';
import type { LocalStack } from './stack';
import { startTestStack } from './test-stack';

// Published list prices (USD per million tokens) of the models used, as the providers bill them.
const GPT_4O_MINI = { input: 0.15, output: 0.6 };
const CLAUDE_HAIKU_4_5 = { input: 1, output: 5 };

let stack: LocalStack;
let webhook: Server;
/** Moves the stack's clock (and the mock providers' with it) forward, to see a completed day. */
let clockOffsetMs = 0;
const notifications: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  webhook = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      notifications.push(JSON.parse(body) as Record<string, unknown>);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
  stack = await startTestStack({
    now: () => Date.now() + clockOffsetMs,
    notifyWebhookUrl: `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/hook`,
    // One day bucket per page: 7 pages per report over the 7-day window.
    reconciliation: { pageLimit: 1, untrackedAlertUsd: 0.0005 },
  });
}, 60_000);
afterAll(async () => {
  await shutdownSdk({ timeoutMs: 1000 }).catch(() => undefined);
  await stack.stop();
  await new Promise((r) => webhook.close(r));
});

const person = () => ({ authorization: `Bearer ${stack.idToken}`, 'content-type': 'application/json' });

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.apiUrl}${path}`, {
    method,
    headers: person(),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, text: await res.text() };
}

interface ProviderView {
  provider: string;
  ledgerUsd: number;
  providerUsd: number;
  untrackedUsd: number;
  overcountedUsd: number;
  agreementPct: number | null;
  tokenAgreementPct: number | null;
  days: Array<{
    date: string;
    model?: string;
    ledgerTokens: number;
    providerTokens: number;
    untrackedUsd: number;
  }>;
}

async function reconcileNow(): Promise<Record<string, ProviderView>> {
  const res = await api('POST', '/v1/reconciliation/run');
  expect(res.status).toBe(200);
  const body = JSON.parse(res.text) as { providers: ProviderView[]; errors: unknown[] };
  expect(body.errors).toEqual([]);
  return Object.fromEntries(body.providers.map((p) => [p.provider, p]));
}

const urls = () => {
  if (!stack.mockProviderUrls) throw new Error('mock providers are not running');
  return stack.mockProviderUrls;
};

describe('reconciliation on the local stack with mock providers', () => {
  it('stores admin credentials without ever returning them', async () => {
    const keys = { openai: 'sk-admin-local-test-key', anthropic: 'sk-ant-admin01-local-test-key' };
    for (const [provider, adminKey] of Object.entries(keys)) {
      const put = await api('PUT', '/v1/reconciliation/credentials', { provider, adminKey });
      expect(put.status).toBe(200);
      expect(put.text).not.toContain(adminKey);
    }
    const bad = await api('PUT', '/v1/reconciliation/credentials', { provider: 'acme', adminKey: 'x y' });
    expect(bad.status).toBe(400);
    expect(bad.text).not.toContain('x y');
    const problems = JSON.parse(bad.text).error.problems as Array<{ path: string }>;
    expect(new Set(problems.map((p) => p.path))).toEqual(new Set(['adminKey', 'provider']));
    const got = await api('GET', '/v1/reconciliation/credentials');
    expect(JSON.parse(got.text)).toEqual({
      providers: [
        { provider: 'openai', configured: true },
        { provider: 'anthropic', configured: true },
        { provider: 'openrouter', configured: false },
        { provider: 'bedrock', configured: false },
      ],
    });
  });

  it('proxy and SDK calls agree with the providers’ reports; direct calls are untracked within 1 %; nothing is overcounted', async () => {
    const proxied = new OpenAI({
      apiKey: 'sk-test',
      baseURL: `${stack.proxyUrl}/openai/v1`,
      defaultHeaders: { 'Service-API-Key': stack.apiKey },
      maxRetries: 0,
    });
    const claude = new Anthropic({
      apiKey: 'sk-ant-test',
      baseURL: `${stack.proxyUrl}/anthropic`,
      defaultHeaders: { 'Service-API-Key': stack.apiKey },
      maxRetries: 0,
    });
    const viaSdk = new OpenAI({
      apiKey: 'sk-test',
      baseURL: `${urls().openai}/v1`,
      maxRetries: 0,
      fetch: wrapFetch(fetch, {
        apiKey: stack.apiKey,
        endpoint: stack.apiUrl,
        provider: 'openai',
        flushIntervalMs: 100,
      }),
    });
    for (let i = 0; i < 3; i++) {
      await proxied.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: `tracked through the proxy, call ${i}` }],
        max_tokens: 12 + i,
      });
    }
    const stream = await proxied.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'a streamed call through the proxy' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const _chunk of stream) void _chunk;
    for (let i = 0; i < 2; i++) {
      await claude.messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 20 + i,
        messages: [{ role: 'user', content: `tracked Claude call ${i}` }],
      });
      await viaSdk.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: `recorded by the SDK, call ${i}` }],
        max_tokens: 30,
      });
    }
    await flushSdk({ timeoutMs: 5000 });
    await stack.drain();

    const tracked = await reconcileNow();
    for (const provider of ['openai', 'anthropic']) {
      expect(tracked[provider]).toMatchObject({
        untrackedUsd: 0,
        overcountedUsd: 0,
        agreementPct: 100,
        tokenAgreementPct: 100,
      });
      expect(tracked[provider]!.ledgerUsd).toBeGreaterThan(0);
    }
    expect(notifications).toEqual([]);

    // Calls nobody instrumented: straight to the providers.
    const direct = new OpenAI({ apiKey: 'sk-test', baseURL: `${urls().openai}/v1`, maxRetries: 0 });
    const directClaude = new Anthropic({ apiKey: 'sk-ant-test', baseURL: urls().anthropic, maxRetries: 0 });
    for (let i = 0; i < 3; i++) {
      // 400 characters = 100 prompt tokens at the mock's 4 characters per token; 50 completion tokens.
      await direct.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'x'.repeat(400) }],
        max_tokens: 50,
      });
    }
    for (let i = 0; i < 2; i++) {
      await directClaude.messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 40,
        messages: [{ role: 'user', content: 'y'.repeat(800) }],
      });
    }
    const expectedOpenAi = (3 * (100 * GPT_4O_MINI.input + 50 * GPT_4O_MINI.output)) / 1e6; // $0.000135
    const expectedAnthropic = (2 * (200 * CLAUDE_HAIKU_4_5.input + 40 * CLAUDE_HAIKU_4_5.output)) / 1e6; // $0.0008

    const after = await reconcileNow();
    const openai = after.openai!;
    const anthropic = after.anthropic!;
    expect(Math.abs(openai.untrackedUsd - expectedOpenAi) / expectedOpenAi).toBeLessThan(0.01);
    expect(Math.abs(anthropic.untrackedUsd - expectedAnthropic) / expectedAnthropic).toBeLessThan(0.01);
    expect([openai.overcountedUsd, anthropic.overcountedUsd]).toEqual([0, 0]);
    // The tracked part still agrees: the ledger did not move, the bill grew by the direct calls only.
    expect(openai.ledgerUsd).toBe(tracked.openai!.ledgerUsd);
    expect(openai.providerUsd - openai.untrackedUsd).toBeCloseTo(openai.ledgerUsd, 9);
    expect(anthropic.providerUsd - anthropic.untrackedUsd).toBeCloseTo(anthropic.ledgerUsd, 9);
    const sum = (p: ProviderView, k: 'ledgerTokens' | 'providerTokens') =>
      p.days.reduce((n, d) => n + d[k], 0);
    expect(sum(openai, 'providerTokens') - sum(openai, 'ledgerTokens')).toBe(3 * 150);
    expect(sum(anthropic, 'providerTokens') - sum(anthropic, 'ledgerTokens')).toBe(2 * 240);
    expect(openai.agreementPct).toBeLessThan(100);
    expect(openai.days.find((d) => d.model === 'gpt-4o-mini')?.untrackedUsd).toBeCloseTo(expectedOpenAi, 6);

    // The Anthropic untracked spend ($0.0008) crossed the $0.0005 threshold: one notification.
    await new Promise((r) => setTimeout(r, 200));
    expect(notifications).toEqual([
      expect.objectContaining({ kind: 'untracked_spend', orgId: stack.orgId, thresholdValue: 0.0005 }),
    ]);
    // GET serves the stored run.
    const stored = JSON.parse((await api('GET', '/v1/reconciliation')).text) as { providers: ProviderView[] };
    expect(stored.providers.map((p) => p.untrackedUsd)).toEqual([
      anthropic.untrackedUsd,
      openai.untrackedUsd,
    ]);
  }, 60_000);

  it('read every report page by page (next_page followed)', async () => {
    const res = await fetch(
      `${urls().openai}/v1/organization/usage/completions?start_time=${Math.floor(Date.now() / 1000) - 6 * 86_400}&limit=1&group_by=model`,
      {
        headers: { authorization: 'Bearer sk-admin-local-test-key' },
      },
    );
    const page = (await res.json()) as { data: unknown[]; has_more: boolean; next_page: string | null };
    expect(page.data).toHaveLength(1);
    expect(page.has_more).toBe(true);
    expect(typeof page.next_page).toBe('string');
    const unauthenticated = await fetch(
      `${urls().anthropic}/v1/organizations/cost_report?starting_at=2026-01-01T00:00:00Z`,
    );
    expect(unauthenticated.status).toBe(401);
  });

  it('OpenRouter: direct calls show as untracked once their day is complete (its activity covers completed days only)', async () => {
    const put = await api('PUT', '/v1/reconciliation/credentials', {
      provider: 'openrouter',
      adminKey: 'sk-or-v1-management-test',
    });
    expect(put.status).toBe(200);
    const direct = new OpenAI({
      apiKey: 'sk-or-test',
      baseURL: `${urls().openrouter}/api/v1`,
      maxRetries: 0,
    });
    for (let i = 0; i < 2; i++) {
      await direct.chat.completions.create({
        model: 'openai/gpt-4o-mini',
        messages: [{ role: 'user', content: 'o'.repeat(400) }],
        max_tokens: 50,
      });
    }
    // Today is not compared yet: the activity report has no today.
    const sameDay = await reconcileNow();
    expect(sameDay.openrouter).toMatchObject({ untrackedUsd: 0, overcountedUsd: 0, days: [] });
    clockOffsetMs = 86_400_000;
    try {
      const nextDay = await reconcileNow();
      // The mock's usage.cost: 100 × $0.000001 + 50 × $0.000002 per call.
      const expected = 2 * (100 * 0.000001 + 50 * 0.000002);
      expect(Math.abs(nextDay.openrouter!.untrackedUsd - expected) / expected).toBeLessThan(0.01);
      expect(nextDay.openrouter!.overcountedUsd).toBe(0);
      // Yesterday's OpenAI and Anthropic rows are unchanged by a day passing.
      expect(nextDay.openai!.overcountedUsd).toBe(0);
      expect(nextDay.anthropic!.overcountedUsd).toBe(0);
    } finally {
      clockOffsetMs = 0;
    }
  });
});

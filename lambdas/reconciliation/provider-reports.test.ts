/**
 * The report clients against the mock providers' admin endpoints (real formats, real paging) and
 * against hand-written failures: paging is followed to the end, a failure names provider, path and
 * status and never the credential.
 */
import fc from 'fast-check';
import { createServer } from 'node:http';
import { startMockProviders, type MockProviders } from '../../local/mock-providers';
import { anthropicReport, openAiReport, openRouterReport } from './provider-reports';
import { allPages, getReport, MAX_REPORT_PAGES, ProviderReportError } from './report-request';
import { openAiUsagePageSchema } from '../../core/reconciliation';

const DAY = 86_400_000;
const TODAY = Date.parse('2026-11-22T12:00:00.000Z');
const days = (n: number) =>
  Array.from({ length: n }, (_, i) => new Date(TODAY - (n - 1 - i) * DAY).toISOString().slice(0, 10));

let mock: MockProviders;
let now = TODAY;
beforeAll(async () => {
  mock = await startMockProviders({ now: () => now });
});
afterAll(() => mock.close());
beforeEach(() => {
  mock.reset();
  now = TODAY;
});

async function post(url: string, body: unknown) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  await res.text();
}

describe('report clients against the mock providers', () => {
  it('OpenAI: follows next_page through every day bucket (one per page) and merges usage and costs per model', async () => {
    now = TODAY - 3 * DAY; // three days ago
    await post(`${mock.baseUrls.openai}/v1/chat/completions`, {
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'x'.repeat(400) }],
      max_tokens: 50,
    });
    now = TODAY;
    await post(`${mock.baseUrls.openai}/v1/embeddings`, {
      model: 'text-embedding-3-small',
      input: 'y'.repeat(40),
    });
    const seen: string[] = [];
    const report = await openAiReport({
      baseUrl: mock.baseUrls.openai,
      adminKey: 'sk-admin-test',
      days: days(7),
      pageLimit: 1,
      fetch: (input, init) => {
        seen.push(String(input));
        return fetch(input, init);
      },
    });
    // 3 endpoints × 7 one-bucket pages
    expect(seen).toHaveLength(21);
    expect(seen.filter((u) => u.includes('page='))).toHaveLength(18);
    const cost = (model: string) =>
      report.rows.filter((r) => r.model === model).reduce((n, r) => n + r.costNanos, 0);
    const tokens = (model: string) =>
      report.rows.filter((r) => r.model === model).reduce((n, r) => n + r.tokens, 0);
    // gpt-4o-mini at $0.15 / $0.60 per MTok: 100 × 150 + 50 × 600 nanos
    expect(cost('gpt-4o-mini')).toBe(45_000);
    expect(tokens('gpt-4o-mini')).toBe(150);
    // text-embedding-3-small at $0.02 per MTok: 10 tokens
    expect(cost('text-embedding-3-small')).toBe(200);
    expect(report.rows.find((r) => r.model === 'gpt-4o-mini' && r.costNanos > 0)?.date).toBe(days(7)[3]);
    expect(report.coveredDays).toEqual(days(7));
  });

  it('Anthropic: group_by[] and x-api-key, cost report in cents, paged', async () => {
    await post(`${mock.baseUrls.anthropic}/v1/messages`, {
      model: 'claude-haiku-4-5',
      max_tokens: 40,
      messages: [{ role: 'user', content: 'z'.repeat(800) }],
    });
    const seen: Array<{ url: string; headers: Record<string, string> }> = [];
    const report = await anthropicReport({
      baseUrl: mock.baseUrls.anthropic,
      adminKey: 'sk-ant-admin01-test',
      days: days(3),
      pageLimit: 2,
      fetch: (input, init) => {
        seen.push({ url: String(input), headers: init?.headers as Record<string, string> });
        return fetch(input, init);
      },
    });
    expect(seen).toHaveLength(4); // 2 endpoints × pages of 2 + 1 buckets
    expect(seen[0]?.headers).toMatchObject({
      'x-api-key': 'sk-ant-admin01-test',
      'anthropic-version': '2023-06-01',
    });
    expect(decodeURIComponent(seen[0]!.url)).toContain('group_by[]=model');
    // claude-haiku-4-5 at $1 / $5 per MTok: 200 × 1000 + 40 × 5000 nanos
    expect(report.rows.reduce((n, r) => n + r.costNanos, 0)).toBe(400_000);
    expect(report.rows.reduce((n, r) => n + r.tokens, 0)).toBe(240);
  });

  it('OpenRouter: activity of completed days only; today stays out of the comparison', async () => {
    now = TODAY - DAY;
    await post(`${mock.baseUrls.openrouter}/api/v1/chat/completions`, {
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: 'q'.repeat(40) }],
      max_tokens: 10,
    });
    now = TODAY;
    await post(`${mock.baseUrls.openrouter}/api/v1/chat/completions`, {
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: 'q'.repeat(40) }],
      max_tokens: 10,
    });
    const report = await openRouterReport({
      baseUrl: mock.baseUrls.openrouter,
      adminKey: 'sk-or-mgmt',
      days: days(2),
      fetch,
    });
    // usage.cost of the mock: 10 × $1e-6 + 10 × $2e-6 = $0.00003
    expect(report.rows).toEqual([
      { date: days(2)[0], model: 'openai/gpt-4o-mini', costNanos: 30_000, tokens: 20 },
    ]);
    expect(report.coveredDays).toEqual([days(2)[0]]);
  });

  it('a refused credential fails with provider, path and status, never the key', async () => {
    const err = await openAiReport({
      baseUrl: mock.baseUrls.openai,
      adminKey: 'sk-admin-SECRET',
      days: days(1),
      fetch: (input, init) => fetch(input, { ...init, headers: {} }),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderReportError);
    expect((err as Error).message).toMatch(/^openai: (?:\/openai)?\/v1\/organization\/[a-z/]+ answered 401$/);
    expect((err as Error).message).not.toContain('SECRET');
  });
});

describe('paging and parsing guards', () => {
  const page = (hasMore: boolean, next: string | null) =>
    new Response(JSON.stringify({ object: 'page', data: [], has_more: hasMore, next_page: next }), {
      status: 200,
    });

  it('stops at has_more: false, refuses has_more without next_page, and bounds the pages', async () => {
    let n = 0;
    const pages = await allPages(async () => ({ has_more: ++n < 4, next_page: `p${n}` }), 'openai');
    expect(pages).toHaveLength(4);
    await expect(allPages(async () => ({ has_more: true, next_page: null }), 'x')).rejects.toThrow(
      'has_more without next_page',
    );
    await expect(allPages(async () => ({ has_more: true, next_page: 'again' }), 'x')).rejects.toThrow(
      `more than ${MAX_REPORT_PAGES} pages`,
    );
    const parsed = await getReport(
      async () => page(false, null),
      new URL('http://x/v1/organization/usage/completions'),
      {},
      openAiUsagePageSchema,
      'openai',
    );
    expect(parsed.has_more).toBe(false);
  });

  it('property: any body that is not a report page is a ProviderReportError, never a crash', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (body) => {
        const r = await getReport(
          async () => new Response(JSON.stringify(body), { status: 200 }),
          new URL('http://x/v1/organization/costs'),
          {},
          openAiUsagePageSchema,
          'openai',
        ).catch((e: unknown) => e);
        if (r instanceof Error) expect(r).toBeInstanceOf(ProviderReportError);
        else expect(openAiUsagePageSchema.safeParse(body).success).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('redirects', () => {
  it('a report answering a redirect fails without the admin key reaching the other host', async () => {
    const reached: Array<string | undefined> = [];
    const elsewhere = createServer((req, res) => {
      reached.push(req.headers['x-api-key'] as string | undefined);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[],"has_more":false}');
    });
    await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.1', r));
    const target = `http://127.0.0.1:${(elsewhere.address() as { port: number }).port}/steal`;
    const redirecting = createServer((_req, res) => res.writeHead(302, { location: target }).end());
    await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(redirecting.address() as { port: number }).port}`;
    try {
      await expect(
        getReport(
          fetch,
          new URL(`${base}/v1/organizations/cost_report`),
          { 'x-api-key': 'sk-ant-admin01-x' },
          openAiUsagePageSchema,
          'anthropic',
        ),
      ).rejects.toThrow(ProviderReportError);
      expect(reached).toEqual([]);
    } finally {
      await new Promise((r) => redirecting.close(r));
      await new Promise((r) => elsewhere.close(r));
    }
  });
});

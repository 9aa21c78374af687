/**
 * Issue 19.2 and 18.6 through the local proxy with a $6 daily hard cap, lease items in memory: the body
 * the relay bounds is the body the provider runs, and calls that bill after they return are refused.
 */
import http from 'node:http';
import { startProxyHarness, type ProxyHarness } from '../../local/proxy/test-support';
import { BudgetLeases } from '../shared/budget-leases';
import { MemoryBudgetLeaseStore } from '../shared/stores/budget-lease-store';
import type { OrgConfigStore } from '../shared/stores/org-config-store';

function configWith(dailyLimitUsd: number | undefined, allowDeferredBilling = false): OrgConfigStore {
  return {
    get: () =>
      Promise.resolve({
        budget: dailyLimitUsd === undefined ? {} : { dailyLimitUsd, action: 'block', allowDeferredBilling },
        policy: {},
        updatedAt: '2026-11-23T00:00:00.000Z',
      }),
    put: () => Promise.resolve(),
  };
}

async function harness(
  dailyLimitUsd: number | undefined,
  allowDeferredBilling = false,
): Promise<ProxyHarness> {
  const config = configWith(dailyLimitUsd, allowDeferredBilling);
  const budgetLeases = new BudgetLeases({ store: new MemoryBudgetLeaseStore(), config, now: Date.now });
  return startProxyHarness({ proxy: { budgetLeases, orgConfig: config } });
}

function post(h: ProxyHarness, path: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${h.proxy.url}${path}`,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'service-api-key': h.apiKey },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('one parse decides the call (issue 19.2, 18.6)', () => {
  let h: ProxyHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('refuses the two-model body with 400 invalid_request under a $6 cap; the provider never sees it', async () => {
    h = await harness(6);
    const res = await post(
      h,
      '/openai/v1/chat/completions',
      '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],' +
        '"max_completion_tokens":100000,"model":"o1-pro"}',
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'invalid_request' } });
    expect(h.mock.requests()).toHaveLength(0);
    // the same call named once as o1-pro cannot fit: 100,000 output tokens at $600 / MTok = $60
    const once = await post(
      h,
      '/openai/v1/chat/completions',
      '{"model":"o1-pro","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":100000}',
    );
    expect(once.status).toBe(429);
    expect(h.mock.requests()).toHaveLength(0);
  });

  it('refuses a background response under a hard cap (403 deferred_billing_refused), forwards it without one', async () => {
    const body = JSON.stringify({
      model: 'gpt-4o-mini',
      input: 'hi',
      max_output_tokens: 5,
      background: true,
    });
    h = await harness(6);
    const capped = await post(h, '/openai/v1/responses', body);
    expect(capped.status).toBe(403);
    expect(JSON.parse(capped.body)).toMatchObject({ error: { code: 'deferred_billing_refused' } });
    expect(h.mock.requests()).toHaveLength(0);
    await h.close();
    h = await harness(undefined);
    const free = await post(h, '/openai/v1/responses', body);
    expect(free.status).not.toBe(403);
    expect(h.mock.requests()).toHaveLength(1);
  });

  it('forwards a background response under the cap when the organization allows deferred billing', async () => {
    const body = JSON.stringify({
      model: 'gpt-4o-mini',
      input: 'hi',
      max_output_tokens: 5,
      background: true,
    });
    h = await harness(6, true);
    const allowed = await post(h, '/openai/v1/responses', body);
    expect(allowed.status).not.toBe(403);
    expect(h.mock.requests()).toHaveLength(1);
  });
});

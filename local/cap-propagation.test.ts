/**
 * A hard cap set or lowered through `PUT /v1/budget` is in force for the next call through the proxy the
 * moment the PUT has answered (issue 18: calls that do not fit are refused before the provider), whether
 * the relay container held an uncapped answer or a slice granted under the old cap
 * (lambdas/shared/caps-propagation.ts). The official OpenAI client, on the whole local stack.
 */
import OpenAI from 'openai';
import { shutdown as shutdownSdk, wrapFetch } from '../sdk/src';
import { sdkState } from '../sdk/src/tracked-fetch';
import type { LocalStack } from './stack';
import { startTestStack } from './test-stack';

let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await shutdownSdk({ timeoutMs: 1000 }).catch(() => undefined);
  await stack.stop();
});

async function api(method: string, path: string, body: unknown, auth: Record<string, string>) {
  const res = await fetch(`${stack.apiUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...auth },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A fresh organization and key (two calls each: far below layer 4's ten a minute). */
async function organization(orgId: string) {
  const auth = { authorization: `Bearer ${await stack.issueIdToken(orgId)}` };
  const created = await api('POST', '/v1/keys', { name: 'agent' }, auth);
  expect(created.status).toBe(201);
  const client = new OpenAI({
    apiKey: 'sk-test',
    baseURL: `${stack.proxyUrl}/openai/v1`,
    maxRetries: 0,
    defaultHeaders: { 'Service-API-Key': created.body.apiKey as string },
  });
  let n = 0;
  /** One chat call (a new prompt each time: no loop): 200, or the refusal's status and code. */
  const chat = async (): Promise<[number, string | null]> => {
    try {
      await client.chat.completions.create({
        model: 'gpt-4o',
        max_tokens: 4000,
        messages: [{ role: 'user', content: `Summarise report ${++n}.` }],
      });
      return [200, null];
    } catch (err) {
      if (err instanceof OpenAI.APIError) return [err.status ?? 0, (err.code as string | null) ?? null];
      throw err;
    }
  };
  const setCap = async (dailyLimitUsd: number) => {
    const put = await api('PUT', '/v1/budget', { budget: { dailyLimitUsd, action: 'block' } }, auth);
    expect(put.status).toBe(200);
  };
  /** Waits (up to `ms`) until the organization's flags are `triggers`, by trigger type. */
  const flagsBecome = async (triggers: string[], ms = 20_000): Promise<void> => {
    const until = Date.now() + ms;
    for (;;) {
      const flags = (await api('GET', '/v1/flags', undefined, auth)).body.flags as Array<{
        triggerType: string;
      }>;
      const now = [...new Set(flags.map((f) => f.triggerType))].sort();
      if (JSON.stringify(now) === JSON.stringify(triggers) || Date.now() > until) {
        expect(now).toEqual(triggers);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  return { auth, chat, setCap, flagsBecome };
}

// gpt-4o with max_tokens 4000: a worst case of about $0.04 (4,000 output tokens at $10 per million).
it.each([1, 2, 3])(
  'a cap set on an uncapped organization refuses the very next call (run %i)',
  async (run) => {
    const org = await organization(`org_cap_new_${run}`);
    expect(await org.chat()).toEqual([200, null]); // the relay now holds an uncapped answer
    await org.setCap(0.001);
    expect(await org.chat()).toEqual([429, 'budget_daily_hard']);
  },
);

it('a cap lowered under a slice granted by the old one refuses the very next call', async () => {
  const org = await organization('org_cap_lowered');
  await org.setCap(50);
  expect(await org.chat()).toEqual([200, null]); // the relay now holds a slice of the $50 cap
  await org.setCap(0.001);
  expect(await org.chat()).toEqual([429, 'budget_daily_hard']);
});

it('raising the cap above the spend that reached it ends the budget suspension at once; another kill stays', async () => {
  const org = await organization('org_cap_raised');
  expect(await org.chat()).toEqual([200, null]);
  // Below what was spent: layer 1 suspends the organization (budget_daily_hard, for 2 h). The pipeline
  // has judged the call's event first (a refused call makes none): the PUT sets the flag itself.
  await org.flagsBecome([]);
  await stack.drain();
  await org.setCap(0.000001);
  await org.flagsBecome(['budget_daily_hard'], 0);
  expect(await org.chat()).toEqual([429, 'budget_daily_hard']);
  const set = await api('GET', '/v1/audit?action=flag.set', undefined, org.auth);
  expect(set.body.entries).toEqual([
    expect.objectContaining({
      after: expect.objectContaining({ triggerType: 'budget_daily_hard', state: 'SUSPENDED' }),
    }),
  ]);
  await org.setCap(50);
  await org.flagsBecome([], 0); // cleared by the PUT itself, before it answered
  expect(await org.chat()).toEqual([200, null]);
  const audit = await api('GET', '/v1/audit?action=flag.cleared', undefined, org.auth);
  expect(audit.body.entries).toEqual([
    expect.objectContaining({ before: expect.objectContaining({ triggerTypes: ['budget_daily_hard'] }) }),
  ]);

  // With a person's kill beside it, raising the cap clears only the budget flag.
  await stack.drain();
  await org.setCap(0.000001);
  await org.flagsBecome(['budget_daily_hard'], 0);
  const kill = await fetch(`${stack.apiUrl}/api/guardrails/enforce`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...org.auth },
    body: JSON.stringify({
      action: 'SUSPENDED',
      triggerType: 'manual',
      observedValue: 1,
      thresholdValue: 1,
      mode: 'hard_stop',
    }),
  });
  expect(kill.status).toBe(200);
  await org.setCap(50);
  await org.flagsBecome(['manual'], 0);
  expect((await org.chat())[0]).toBe(429);
  // Lowered again under the kill: the kill stands as it is (one organization flag per key), not replaced.
  await org.setCap(0.000001);
  await org.flagsBecome(['manual'], 0);
}, 60_000);

it('a running SDK process that holds an uncapped answer learns of a cap set later, with no flag to tell it', async () => {
  const auth = { authorization: `Bearer ${await stack.issueIdToken('org_cap_sdk')}` };
  const created = await api('POST', '/v1/keys', { name: 'sdk' }, auth);
  expect(created.status).toBe(201);
  const client = new OpenAI({
    apiKey: 'sk-test',
    baseURL: `${stack.mockProviderUrls!.openai}/v1`,
    maxRetries: 0,
    fetch: wrapFetch(fetch, {
      apiKey: created.body.apiKey as string,
      endpoint: stack.apiUrl,
      provider: 'openai',
    }),
  });
  let n = 0;
  const chat = () =>
    client.chat.completions.create({
      model: 'gpt-4o-mini',
      max_tokens: 20,
      messages: [{ role: 'user', content: `Summarise memo ${++n}.` }],
    });
  const leaseState = () =>
    [...sdkState().clients.values()].find((c) => !c.isClosed && c.config.endpoint === stack.apiUrl)?.stats()
      .lease?.state;
  await chat();
  expect(leaseState()).toBe('uncapped');
  // A cap far above what these calls cost: no flag is set, only the lease can tell the process.
  const put = await api('PUT', '/v1/budget', { budget: { dailyLimitUsd: 50, action: 'block' } }, auth);
  expect(put.status).toBe(200);
  const setAt = Date.now();
  while (leaseState() !== 'capped' && Date.now() - setAt < 20_000) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    await chat();
  }
  // Within the uncapped answer's 10 s and one lease request (measured 9.8 s; 15.3 s with the former 30 s
  // answer, which the SDK's own state checks cut short). The bound leaves room for a loaded machine;
  // the answer's lifetime itself is held by lambdas/api/routes/budget-lease.test.ts.
  expect(leaseState()).toBe('capped');
}, 30_000);

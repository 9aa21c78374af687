/**
 * Budget admission on the stand-ins: the official OpenAI client through the local proxy to the mock
 * providers, the lease items in dynalite through the real DynamoDB store, a $0.30 daily `block` cap.
 *
 * Each call asks gpt-4o for a 2,000-token prompt (8,000 characters: the mock bills characters / 4) and
 * 64 output tokens (its max_tokens, which the mock produces exactly): at OpenAI's published $2.50 / $10.00
 * per million tokens that is 2,000 × 2.5 + 64 × 10 = 5,640,000 nano-USD = $0.00564 per call, so the cap
 * holds exactly 53 calls (53 × 0.00564 = $0.29892; a 54th would reach $0.30456).
 */
import OpenAI from 'openai';
import { startBackendHarness, type BackendHarness } from '../../test/backend-harness';
import { startMockProviders, type MockProviders } from '../mock-providers';
import { createLocalProxy, type LocalProxy } from './local-proxy';

const CALL_NANOS = 2_000 * 2_500 + 64 * 10_000;
const CAP_USD = 0.3;
const CAP_NANOS = 300_000_000;
const FITTING_CALLS = Math.floor(CAP_NANOS / CALL_NANOS); // 53
const PROMPT = 'The quick brown fox jumps over the lazy dog. '.repeat(200).slice(0, 8_000);
let calls = 0;
/**
 * A distinct task per call, of the same 8,000 characters: the same request 4 times in a row is a loop,
 * which the relay refuses in line (layer 2, issue 19.6) before admission is asked.
 */
const promptOfNextCall = (): string => PROMPT.slice(0, 8_000 - 12) + ` #${String(++calls).padStart(10, '0')}`;

let h: BackendHarness;
let mock: MockProviders;
let proxy: LocalProxy;

beforeAll(async () => {
  h = await startBackendHarness();
  mock = await startMockProviders({ port: 0, recordBodies: false });
  proxy = await createLocalProxy({
    port: 0,
    flags: h.services.flags,
    apiKeys: h.services.apiKeys,
    sink: h.services.sink,
    pepper: h.pepper,
    upstreams: mock.baseUrls,
    now: () => h.services.now(),
    budgetLeases: h.services.budgetLeases,
  });
});

afterAll(async () => {
  await proxy?.close();
  await mock?.close();
  await h?.close();
});

async function orgWithCap(orgId: string): Promise<OpenAI> {
  const key = await h.createKey(orgId);
  await h.services.config.put(
    orgId,
    {
      budget: { dailyLimitUsd: CAP_USD, action: 'block' },
      policy: {},
      updatedAt: new Date(h.services.now()).toISOString(),
    },
    0,
  );
  // The client's default retries stay on: x-should-retry: false must stop them.
  return new OpenAI({
    apiKey: 'sk-test',
    baseURL: `${proxy.url}/openai/v1`,
    defaultHeaders: { 'Service-API-Key': key.apiKey },
  });
}

type Outcome =
  | { ok: true }
  | { ok: false; status: number; type: string; retryAfter: string | null; shouldRetry: string | null };

async function call(client: OpenAI): Promise<Outcome> {
  try {
    await client.chat.completions.create({
      model: 'gpt-4o',
      max_tokens: 64,
      messages: [{ role: 'user', content: promptOfNextCall() }],
    });
    return { ok: true };
  } catch (err) {
    if (!(err instanceof OpenAI.APIError)) throw err;
    const body = err.error as { type?: string } | undefined;
    return {
      ok: false,
      status: err.status ?? 0,
      type: body?.type ?? '',
      retryAfter: err.headers?.get('retry-after') ?? null,
      shouldRetry: err.headers?.get('x-should-retry') ?? null,
    };
  }
}

function served(before: number): number {
  return mock.requests().length - before;
}

describe('budget admission through the local proxy', () => {
  it('holds a $0.30 daily cap under 200 concurrent calls: no overshoot, no refusal while a call fits', async () => {
    const client = await orgWithCap('org_concurrent');
    const before = mock.requests().length;

    const outcomes = await Promise.all(Array.from({ length: 200 }, () => call(client)));

    const ok = outcomes.filter((o) => o.ok).length;
    // Every admitted call reached the provider once; every refusal never reached it (no client retries).
    expect(served(before)).toBe(ok);
    const spendNanos = ok * CALL_NANOS;
    expect(spendNanos).toBeLessThanOrEqual(CAP_NANOS + CALL_NANOS);
    expect(CAP_NANOS - spendNanos).toBeLessThan(CALL_NANOS);
    expect(ok).toBe(FITTING_CALLS);
    const refusals = outcomes.filter((o): o is Extract<Outcome, { ok: false }> => !o.ok);
    expect(refusals).toHaveLength(200 - FITTING_CALLS);
    // Truthful refusals (issue 18.7): final once settled spend leaves no room; retryable while the room is
    // still held by calls in flight (on a loaded machine a call can outwait the client's retries there).
    for (const r of refusals) {
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
      if (r.type === 'budget_busy') {
        expect(r).toMatchObject({ status: 429, shouldRetry: 'true' });
        continue;
      }
      expect(r).toMatchObject({ status: 429, type: 'budget_exceeded', shouldRetry: 'false' });
      // seconds to the end of the UTC day of the harness clock (2026-11-22T10:00Z): 14 h
      expect(Number(r.retryAfter)).toBeLessThanOrEqual(14 * 3600);
    }
    // Whether some of them were already final depends on how fast the fitting calls settled (on a machine
    // running three test suites at once, none had within the 3 s wait: all were the retryable kind).
    // Once every call has settled, the truth is final: the next call is refused for good.
    expect(await call(client)).toMatchObject({ ok: false, type: 'budget_exceeded', shouldRetry: 'false' });
    expect(served(before)).toBe(FITTING_CALLS);
  }, 90_000);

  it('holds the cap for waves of 32 concurrent calls, refusing only once no call fits', async () => {
    const client = await orgWithCap('org_waves');
    const before = mock.requests().length;
    let ok = 0;
    let firstRefusalWave = -1;
    for (let wave = 0; wave < 4; wave++) {
      const outcomes = await Promise.all(Array.from({ length: 32 }, () => call(client)));
      const waveOk = outcomes.filter((o) => o.ok).length;
      if (firstRefusalWave === -1 && waveOk < 32) {
        firstRefusalWave = wave;
        // At the first refusal, what was spent leaves no room for one more call.
        expect(CAP_NANOS - (ok + waveOk) * CALL_NANOS).toBeLessThan(CALL_NANOS);
      }
      ok += waveOk;
    }
    expect(firstRefusalWave).toBe(1); // 32 fit in wave 0, 21 more in wave 1
    expect(ok).toBe(FITTING_CALLS);
    expect(served(before)).toBe(FITTING_CALLS);
  }, 60_000);

  it('shows admitted, settled and leased spend in the admission view', async () => {
    const view = await h.services.budgetLeases.view(
      { kind: 'organization', orgId: 'org_waves' },
      {
        day: CAP_NANOS,
        month: null,
      },
    );
    // Nothing is in flight; settled spend reaches the store with the holder's next report, so it is at
    // most the 53 calls, and what the holder leases covers the rest.
    expect(view.day.reservedNanos).toBe(0);
    expect(view.day.outstandingReservations).toBe(0);
    expect(view.day.settledNanos).toBeLessThanOrEqual(FITTING_CALLS * CALL_NANOS);
    expect(view.day.settledNanos + view.day.leasedNanos).toBeGreaterThanOrEqual(FITTING_CALLS * CALL_NANOS);
    expect(view.day.settledNanos + view.day.leasedNanos).toBeLessThanOrEqual(CAP_NANOS);
  });

  it('admits everything, with no lease item, when the organization has no block cap', async () => {
    const key = await h.createKey('org_uncapped');
    await h.services.config.put(
      'org_uncapped',
      {
        budget: { dailyLimitUsd: 0.000001, action: 'warn' },
        policy: {},
        updatedAt: new Date(h.services.now()).toISOString(),
      },
      0,
    );
    const client = new OpenAI({
      apiKey: 'sk-test',
      baseURL: `${proxy.url}/openai/v1`,
      defaultHeaders: { 'Service-API-Key': key.apiKey },
    });
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => call(client)));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    await expect(
      h.services.budgetLeases.view(
        { kind: 'organization', orgId: 'org_uncapped' },
        { day: null, month: null },
      ),
    ).resolves.toMatchObject({ day: { settledNanos: 0, holders: 0 } });
  });
});

/** verifyService: a structured result that says what is wrong, never an exception. */
import { verifyService } from '../src';
import { startFakeIngest, TEST_API_KEY, type FakeIngest } from './helpers/fake-ingest';

let ingest: FakeIngest;
beforeAll(async () => {
  ingest = await startFakeIngest();
});
afterAll(() => ingest.close());
beforeEach(() => {
  ingest.budget = { status: 'ok', flag: null, spend: { todayUsd: 1.5, monthUsd: 20 } };
  ingest.budgetStatus = 200;
});

const byName = (checks: Array<{ name: string; ok: boolean; message: string }>) =>
  Object.fromEntries(checks.map((c) => [c.name, c]));

describe('verifyService', () => {
  it('passes every check with a valid key and a reachable backend', async () => {
    const result = await verifyService({ apiKey: TEST_API_KEY, endpoint: ingest.url });
    expect(result.ok).toBe(true);
    expect(result.checks.map((c) => c.name)).toEqual([
      'apiKeyFormat',
      'endpoint',
      'backendReachable',
      'apiKeyAccepted',
      'organizationActive',
    ]);
    expect(result.orgStatus).toEqual({ status: 'ok', spend: { todayUsd: 1.5, monthUsd: 20 } });
    expect(JSON.stringify(result)).not.toContain(TEST_API_KEY.slice(17)); // the secret is never echoed
  });

  it.each([
    ['no key', undefined, /no API key/],
    ['a provider key', 'sk-proj-abcdefghijklmnopqrstuvwxyz', /abn_/],
    ['a truncated key', TEST_API_KEY.slice(0, 40), /length/],
    ['a bad secret', `${TEST_API_KEY.slice(0, 59)}!`, /secret/],
  ])('reports %s as a key format problem', async (_name, apiKey, message) => {
    const result = await verifyService({ apiKey, endpoint: ingest.url });
    expect(result.ok).toBe(false);
    const checks = byName(result.checks);
    expect(checks.apiKeyFormat).toMatchObject({ ok: false, message: expect.stringMatching(message) });
    expect(checks.backendReachable?.ok).toBe(true);
    expect(checks.apiKeyAccepted).toMatchObject({ ok: false, message: 'skipped' });
  });

  it('reports a key the backend rejects (401)', async () => {
    const other = TEST_API_KEY.replace('k3v9', 'zzzz');
    const checks = byName((await verifyService({ apiKey: other, endpoint: ingest.url })).checks);
    expect(checks.apiKeyAccepted).toMatchObject({ ok: false, message: expect.stringContaining('401') });
  });

  it('says what a 403 means: a key without the ingest scope the SDK sends its events with', async () => {
    ingest.budgetStatus = 403;
    const checks = byName((await verifyService({ apiKey: TEST_API_KEY, endpoint: ingest.url })).checks);
    expect(checks.apiKeyAccepted).toMatchObject({
      ok: false,
      message: expect.stringContaining('ingest scope'),
    });
  });

  it('reports an unreachable backend and an invalid endpoint', async () => {
    const down = byName(
      (await verifyService({ apiKey: TEST_API_KEY, endpoint: 'http://127.0.0.1:9', timeoutMs: 2000 })).checks,
    );
    expect(down.backendReachable).toMatchObject({ ok: false, message: expect.stringContaining('failed') });
    const invalid = byName((await verifyService({ apiKey: TEST_API_KEY, endpoint: 'nope' })).checks);
    expect(invalid.endpoint).toMatchObject({ ok: false });
    const missing = byName((await verifyService({ apiKey: TEST_API_KEY })).checks);
    expect(missing.endpoint?.message).toContain('SPENDGUARD_ENDPOINT');
  });

  it('reports a SUSPENDED organization', async () => {
    ingest.budget = {
      status: 'suspended',
      flag: { state: 'SUSPENDED', expiresAt: new Date(Date.now() + 60_000).toISOString() },
    };
    const result = await verifyService({ apiKey: TEST_API_KEY, endpoint: ingest.url });
    expect(result.ok).toBe(false);
    expect(byName(result.checks).organizationActive).toMatchObject({
      ok: false,
      message: expect.stringContaining('SUSPENDED'),
    });
  });

  it('never throws, even with a fetch that throws', async () => {
    const result = await verifyService({
      apiKey: TEST_API_KEY,
      endpoint: ingest.url,
      fetch: () => {
        throw new Error('broken fetch');
      },
    });
    expect(result.ok).toBe(false);
    expect(byName(result.checks).backendReachable?.message).toContain('broken fetch');
  });
});

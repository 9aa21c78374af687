/**
 * Kill scopes on the whole local stack (design decision 13, issues 12.5, 15.3, 15.4): the official OpenAI
 * client calls through the local proxy, the pipeline trips the layers, and the guard refuses exactly
 * what ran away: a looping session, a bursting key, or (for a budget cap) every key of the organization,
 * including a key created afterwards.
 */
import OpenAI from 'openai';
import type { LocalStack } from './stack';
import { startTestStack } from './test-stack';

let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

/** The guard caches a (key, session) lookup for about a second: the documented propagation bound. */
const afterGuardCache = () => new Promise((r) => setTimeout(r, 1200));

async function call(method: string, path: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(`${stack.apiUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A fresh organization (so no other test's calls count toward its layers) with a person's token. */
async function organization(orgId: string) {
  const token = await stack.issueIdToken(orgId);
  const auth = { authorization: `Bearer ${token}` };
  const newKey = async () => {
    const created = await call('POST', '/v1/keys', { name: 'agent' }, auth);
    expect(created.status).toBe(201);
    return { apiKey: created.body.apiKey as string, publicId: created.body.key.publicId as string };
  };
  return { auth, newKey };
}

/** The status the official client sees for one chat call (200, or the APIError's status). */
async function statusOf(
  apiKey: string,
  session: string | undefined,
  prompt: string,
  extra: Record<string, string> = {},
): Promise<number> {
  const client = new OpenAI({
    apiKey: 'sk-test',
    baseURL: `${stack.proxyUrl}/openai/v1`,
    maxRetries: 0,
    defaultHeaders: {
      ...extra,
      'Service-API-Key': apiKey,
      ...(session === undefined ? {} : { 'x-spendguard-session': session }),
    },
  });
  try {
    await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: prompt }],
    });
    return 200;
  } catch (err) {
    if (err instanceof OpenAI.APIError && err.status !== undefined) return err.status;
    throw err;
  }
}

describe('kill scopes through the local proxy', () => {
  it('a looping session is refused while another session of its key and another key keep working; Resume of that session clears only it', async () => {
    const org = await organization('org_scope_loop');
    // Room for the calls of this test under layer 4, so that only layer 2 trips.
    await call('PUT', '/v1/budget', { policy: { layers: { rpsBurst: { maxRequests: 100 } } } }, org.auth);
    const a = await org.newKey();
    const b = await org.newKey();

    for (let i = 0; i < 4; i++) {
      expect(await statusOf(a.apiKey, 'loop-1', 'retry the failing step')).toBe(200);
      expect(await statusOf(a.apiKey, 'loop-2', 'run the failing test again')).toBe(200);
    }
    await stack.drain();
    await afterGuardCache();

    const before = stack.mockProviderRequests!();
    expect(await statusOf(a.apiKey, 'loop-1', 'retry the failing step')).toBe(429);
    expect(await statusOf(a.apiKey, 'loop-1', 'something else entirely')).toBe(429);
    expect(await statusOf(a.apiKey, 'loop-2', 'run the failing test again')).toBe(429);
    expect(stack.mockProviderRequests!()).toBe(before); // refused at the guard: the provider saw nothing
    expect(await statusOf(a.apiKey, 'calm', 'summarize the report')).toBe(200);
    expect(await statusOf(a.apiKey, undefined, 'summarize the report')).toBe(200);
    expect(await statusOf(b.apiKey, 'loop-1', 'retry the failing step')).toBe(200);

    const flags = await call('GET', '/v1/flags', undefined, org.auth);
    expect(
      (flags.body.flags as { scope: string; keyId: string; sessionId: string }[])
        .map((f) => `${f.scope}:${f.keyId}:${f.sessionId}`)
        .sort(),
    ).toEqual([`session:${a.publicId}:loop-1`, `session:${a.publicId}:loop-2`]);

    const resumed = await call(
      'POST',
      '/api/guardrails/enforce',
      { action: 'ACTIVE', scope: 'session', keyId: a.publicId, sessionId: 'loop-1' },
      org.auth,
    );
    expect(resumed).toMatchObject({ status: 200, body: { action: 'RESUMED', scope: 'session' } });
    await afterGuardCache();
    expect(await statusOf(a.apiKey, 'loop-1', 'a fresh start')).toBe(200);
    expect(await statusOf(a.apiKey, 'loop-2', 'run the failing test again')).toBe(429);
  });

  it('a loop that names a new session on every call is refused within 8 calls, at key scope, even against a provider answering at once (issue 19.6)', async () => {
    const org = await organization('org_scope_renamed');
    // Bursts off, so only layer 2 can stop it.
    await call('PUT', '/v1/budget', { policy: { layers: { rpsBurst: { maxRequests: 100 } } } }, org.auth);
    const a = await org.newKey();
    const b = await org.newKey();
    const before = stack.mockProviderRequests!();
    const statuses: number[] = [];
    // The mock answers at once: the pipeline's verdict (about 0.75 s, then the guard's 1 s cache) comes
    // long after the loop is over; the relay's in-line check must stop it on its own.
    for (let i = 0; i < 20; i++)
      statuses.push(await statusOf(a.apiKey, `attempt-${i}`, 'retry the failing step'));
    const firstRefused = statuses.indexOf(429) + 1;
    expect(firstRefused).toBeGreaterThanOrEqual(4);
    expect(firstRefused).toBeLessThanOrEqual(8);
    expect(statuses.slice(firstRefused - 1).every((s) => s === 429)).toBe(true);
    expect(stack.mockProviderRequests!() - before).toBe(firstRefused - 1); // refused before the provider
    expect(await statusOf(b.apiKey, 'attempt-0', 'retry the failing step')).toBe(200);
    await stack.drain();
    const flags = await call('GET', '/v1/flags', undefined, org.auth);
    expect(flags.body.flags).toEqual([
      expect.objectContaining({ scope: 'key', keyId: a.publicId, triggerType: 'token_loop_identical' }),
    ]);
  });

  it('after Resume of the key, the renamed-session loop’s old count is gone: the loop started again is counted from zero and refused again', async () => {
    const org = await organization('org_scope_renamed_resume');
    await call('PUT', '/v1/budget', { policy: { layers: { rpsBurst: { maxRequests: 100 } } } }, org.auth);
    const a = await org.newKey();
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++)
      statuses.push(await statusOf(a.apiKey, `attempt-${i}`, 'retry the failing step'));
    const heldAt = Date.now();
    expect(statuses.indexOf(429) + 1).toBeLessThanOrEqual(8);
    await stack.drain();
    const resumed = await call(
      'POST',
      '/api/guardrails/enforce',
      { action: 'ACTIVE', scope: 'key', keyId: a.publicId },
      org.auth,
    );
    expect(resumed).toMatchObject({ status: 200, body: { action: 'RESUMED', scope: 'key' } });
    // The guard's cache forgets the flag; the relay's hold ends on the pipeline's trip (docs/guardrails.md).
    await afterGuardCache();
    expect(Date.now() - heldAt).toBeLessThan(10_000); // well before the hold would end on its own
    // The same loop again: the relay counts from zero (a count kept from before the resume would refuse
    // its second call). The pipeline's own run goes on, so its flag follows within about 2 s too.
    const again: number[] = [];
    for (let i = 0; i < 8; i++) again.push(await statusOf(a.apiKey, `again-${i}`, 'retry the failing step'));
    expect(again.slice(0, 2)).toEqual([200, 200]);
    const refusedAgain = again.indexOf(429) + 1;
    expect(refusedAgain).toBeGreaterThanOrEqual(3);
    expect(refusedAgain).toBeLessThanOrEqual(5);
    expect(again.slice(refusedAgain - 1).every((s) => s === 429)).toBe(true);
  });

  it('a loop resumed the moment its flag appears gets its 4 calls again, not a refusal left over from before', async () => {
    const org = await organization('org_scope_loop_resume_now');
    await call('PUT', '/v1/budget', { policy: { layers: { rpsBurst: { maxRequests: 100 } } } }, org.auth);
    const a = await org.newKey();
    const first: number[] = [];
    for (let i = 0; i < 6; i++) first.push(await statusOf(a.apiKey, `try-${i}`, 'retry the failing step'));
    expect(first).toEqual([200, 200, 200, 200, 429, 429]);
    await stack.drain(); // the pipeline's key-scope flag is written
    const resume = { action: 'ACTIVE', scope: 'key', keyId: a.publicId };
    expect((await call('POST', '/api/guardrails/enforce', resume, org.auth)).status).toBe(200);
    // No wait: the relay's hold ends on the Resume, the pipeline's run starts again at it.
    const again: number[] = [];
    for (let i = 0; i < 6; i++) again.push(await statusOf(a.apiKey, `again-${i}`, 'retry the failing step'));
    expect(again).toEqual([200, 200, 200, 200, 429, 429]);
    // And once the pipeline has seen the new calls, it flags the new loop (not before the 4th).
    await stack.drain();
    const flags = await call('GET', '/v1/flags', undefined, org.auth);
    expect(flags.body.flags).toEqual([
      expect.objectContaining({ scope: 'key', keyId: a.publicId, triggerType: 'token_loop_identical' }),
    ]);
  });

  it('a kill pushed through the enforcement endpoint refuses the very next call, and a Resume lets the very next one through (spec 3, 1.5)', async () => {
    const org = await organization('org_scope_kill_now');
    const a = await org.newKey();
    // Warms every guard's cached "no flag" for the key: the kill must still stop the next call.
    expect(await statusOf(a.apiKey, 'task', 'first step')).toBe(200);
    const kill = {
      apiKey: a.apiKey,
      scope: 'key',
      action: 'SUSPENDED',
      triggerType: 'manual',
      observedValue: 0,
      thresholdValue: 0,
      mode: 'hard_stop',
    };
    expect((await call('POST', '/api/guardrails/enforce', kill, org.auth)).status).toBe(200);
    expect(await statusOf(a.apiKey, 'task', 'second step')).toBe(429);
    expect(await statusOf(a.apiKey, 'task', 'third step')).toBe(429);
    const resume = { apiKey: a.apiKey, scope: 'key', action: 'ACTIVE' };
    expect((await call('POST', '/api/guardrails/enforce', resume, org.auth)).status).toBe(200);
    expect(await statusOf(a.apiKey, 'task', 'fourth step')).toBe(200);
  });

  it('a burst (layer 4) stops that key only', async () => {
    const org = await organization('org_scope_burst');
    const a = await org.newKey();
    const b = await org.newKey();
    // Eleven distinct calls within a minute: one more than layer 4 allows a key by default.
    for (let i = 0; i < 11; i++) expect(await statusOf(a.apiKey, `task-${i}`, `step ${i}`)).toBe(200);
    await stack.drain();
    await afterGuardCache();

    expect(await statusOf(a.apiKey, 'task-new', 'one more step')).toBe(429);
    expect(await statusOf(a.apiKey, undefined, 'one more step')).toBe(429);
    expect(await statusOf(b.apiKey, 'task-new', 'one more step')).toBe(200);
    const flags = await call('GET', '/v1/flags', undefined, org.auth);
    expect(flags.body.flags).toEqual([
      expect.objectContaining({ scope: 'key', keyId: a.publicId, sessionId: null, triggerType: 'rps_burst' }),
    ]);

    // Resume: the key goes on, and the requests that tripped it do not trip it again (the window starts
    // at the Resume); only a new burst would.
    const resume = { action: 'ACTIVE', scope: 'key', keyId: a.publicId };
    expect((await call('POST', '/api/guardrails/enforce', resume, org.auth)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect(await statusOf(a.apiKey, `after-${i}`, `after step ${i}`)).toBe(200);
    await stack.drain();
    await afterGuardCache();
    expect(await statusOf(a.apiKey, 'after-5', 'after step 5')).toBe(200);
    expect((await call('GET', '/v1/flags', undefined, org.auth)).body.flags).toEqual([]);
  });

  it('a budget cap (layer 1) stops every key, including one created afterwards, and names the key that spent', async () => {
    const org = await organization('org_scope_cap');
    await call('PUT', '/v1/budget', { budget: { dailyLimitUsd: 1, action: 'block' } }, org.auth);
    const a = await org.newKey();
    const b = await org.newKey();
    // $2.50 of gpt-4o reported by key A's telemetry: past the $1 daily hard cap.
    const spent = await call(
      'POST',
      '/api/ingest',
      {
        apiKey: a.apiKey,
        events: [
          {
            model: 'gpt-4o',
            usage: { prompt_tokens: 1_000_000, completion_tokens: 0 },
            eventId: 'evt_cap_1',
          },
        ],
      },
      {},
    );
    expect(spent).toMatchObject({ status: 200, body: { count: 1, enforcement: { blocked: false } } });
    await stack.drain();
    await afterGuardCache();

    expect(await statusOf(a.apiKey, 'x', 'hello')).toBe(429);
    expect(await statusOf(b.apiKey, 'y', 'hello')).toBe(429);
    const c = await org.newKey();
    expect(await statusOf(c.apiKey, undefined, 'hello')).toBe(429);

    // The ingest answer says so too, for the new key (the SDK's flush reads the same block).
    const flushed = await call(
      'POST',
      '/api/ingest',
      {
        apiKey: c.apiKey,
        events: [
          { model: 'gpt-4o-mini', usage: { prompt_tokens: 1, completion_tokens: 1 }, eventId: 'evt_cap_2' },
        ],
      },
      {},
    );
    expect(flushed.body.enforcement).toMatchObject({
      blocked: true,
      flags: [expect.objectContaining({ scope: 'organization', triggerType: 'budget_daily_hard' })],
    });
    const trips = await call('GET', '/v1/guardrails/trips', undefined, org.auth);
    expect(trips.body.trips[0]).toMatchObject({ triggerType: 'budget_daily_hard', keyId: a.publicId });
    const flags = await call('GET', '/v1/flags', undefined, org.auth);
    expect(flags.body.flags).toEqual([
      expect.objectContaining({ scope: 'organization', keyId: null, keysFlagged: 3 }),
    ]);
  });
});

/**
 * Issue 21 "must show", tried as a new user would on `npm start`: the role tokens of local.json
 * (`idTokens.admin|member|viewer`) against the real handlers behind the local API gateway. A viewer
 * cannot create keys; a member cannot change rates, the budget or credentials (403 role_required) but
 * can create a key; an admin can; GET /v1/audit lists the admin's budget change (actor, before, after)
 * and the member's refused attempt; a deleted credential reads configured: false.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LocalStack } from './stack';
import { startTestStack } from './test-stack';

let stack: LocalStack;
let webhook: Server;
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
    mockProviders: false,
    notifyWebhookUrl: `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/hook`,
  });
}, 60_000);
afterAll(async () => {
  await stack.stop();
  await new Promise((r) => webhook.close(r));
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function call(token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

const roleRequired = (what: string) => ({
  error: { type: 'forbidden', code: 'role_required', message: `${what} needs the admin role` },
});

describe('roles on the local stack', () => {
  it('a viewer cannot create keys', async () => {
    const res = await call(stack.idTokens.viewer, 'POST', '/v1/keys', { name: 'viewer-key' });
    expect(res).toEqual({
      status: 403,
      body: {
        error: { type: 'forbidden', code: 'role_required', message: 'POST /v1/keys needs the member role' },
      },
    });
    // …but reads.
    expect((await call(stack.idTokens.viewer, 'GET', '/v1/keys')).status).toBe(200);
    expect((await call(stack.idTokens.viewer, 'GET', '/v1/audit')).status).toBe(403);
  });

  it('a member cannot change rates, the budget or credentials, but can create a key', async () => {
    const m = stack.idTokens.member;
    const attempts = [
      ['PUT', '/v1/pricing/rates', { multiplier: 0 }, 'PUT /v1/pricing/rates'],
      ['PUT', '/v1/budget', { budget: { action: 'block' } }, 'PUT /v1/budget'],
      [
        'PUT',
        '/v1/reconciliation/credentials',
        { provider: 'openai', adminKey: 'sk-admin-member-try' },
        'PUT /v1/reconciliation/credentials',
      ],
      [
        'DELETE',
        '/v1/reconciliation/credentials/openai',
        undefined,
        'DELETE /v1/reconciliation/credentials/{provider}',
      ],
      ['PUT', '/v1/audit/settings', { retentionDays: 90 }, 'PUT /v1/audit/settings'],
    ] as const;
    for (const [method, path, body, what] of attempts) {
      expect(await call(m, method, path, body)).toEqual({ status: 403, body: roleRequired(what) });
    }
    const created = await call(m, 'POST', '/v1/keys', { name: 'member-key' });
    expect(created.status).toBe(201);
    expect(created.body.apiKey).toMatch(/^abn_/);
    // Nothing the member tried changed anything.
    expect((await call(m, 'GET', '/v1/pricing/rates')).body.rates).toEqual({});
  });

  it('an admin can; the audit log lists the change with actor, before and after, and the refused attempt', async () => {
    const a = stack.idTokens.admin;
    const put = await call(a, 'PUT', '/v1/budget', { budget: { dailyLimitUsd: 25, action: 'block' } });
    expect(put.status).toBe(200);
    expect(put.body.budget.dailyLimitUsd).toBe(25);
    expect((await call(a, 'POST', '/v1/keys', { name: 'admin-key' })).status).toBe(201);

    const log = await call(stack.idTokens.member, 'GET', '/v1/audit?limit=100');
    expect(log.status).toBe(200);
    const budget = log.body.entries.find((e: Json) => e.action === 'budget.updated');
    expect(budget).toMatchObject({
      actor: { kind: 'person', sub: 'local-user', email: 'you@localhost', role: 'admin' },
      before: { budget: {}, policy: {} },
      after: { budget: { dailyLimitUsd: 25, action: 'block' } },
    });
    const denied = log.body.entries.filter((e: Json) => e.action === 'role.denied');
    expect(denied).toContainEqual(
      expect.objectContaining({
        actor: { kind: 'person', sub: 'local-member', email: 'member@localhost', role: 'member' },
        target: 'PUT /v1/pricing/rates',
        after: { needed: 'admin', had: 'member' },
      }),
    );
    // Newest first.
    const times = log.body.entries.map((e: Json) => e.at as string);
    expect([...times].sort().reverse()).toEqual(times);
    // Filter by action.
    const only = await call(a, 'GET', '/v1/audit?action=key.created');
    expect(only.body.entries.map((e: Json) => e.after.name).sort()).toEqual(['admin-key', 'member-key']);
  });

  it('a deleted credential reads configured: false, and neither write records the key', async () => {
    const a = stack.idTokens.admin;
    const stored = await call(a, 'PUT', '/v1/reconciliation/credentials', {
      provider: 'anthropic',
      adminKey: 'sk-ant-admin01-secret-value',
    });
    expect(stored.body.providers).toContainEqual({ provider: 'anthropic', configured: true });
    const deleted = await call(a, 'DELETE', '/v1/reconciliation/credentials/anthropic');
    expect(deleted.status).toBe(200);
    const read = await call(a, 'GET', '/v1/reconciliation/credentials');
    expect(read.body.providers).toContainEqual({ provider: 'anthropic', configured: false });
    expect(await stack.services.adminCredentials.get(stack.orgId, 'anthropic')).toBeUndefined();
    const log = await call(a, 'GET', '/v1/audit?limit=100');
    expect(JSON.stringify(log.body)).not.toContain('secret-value');
    expect(log.body.entries.filter((e: Json) => e.target === 'anthropic').map((e: Json) => e.action)).toEqual(
      ['credentials.deleted', 'credentials.stored'],
    );
    const bad = await call(a, 'DELETE', '/v1/reconciliation/credentials/nope');
    expect(bad.status).toBe(400);
    expect(bad.body.error.problems).toEqual([
      { path: 'provider', message: expect.stringContaining('openai') },
    ]);
  });

  it('pages the log with an opaque cursor, and refuses one it did not issue', async () => {
    const a = stack.idTokens.admin;
    const all = (await call(a, 'GET', '/v1/audit?limit=100')).body.entries as Json[];
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: Json } = await call(
        a,
        'GET',
        `/v1/audit?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.entries.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.entries.map((e: Json) => e.id as string));
      cursor = page.body.nextCursor as string | null;
    } while (cursor !== null);
    expect(seen).toEqual(all.map((e) => e.id));
    const forged = Buffer.from(JSON.stringify({ sk: 'ORG#other' })).toString('base64url');
    const bad = await call(a, 'GET', `/v1/audit?cursor=${forged}`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.problems[0].path).toBe('cursor');
    expect((await call(a, 'GET', '/v1/audit?limit=0')).status).toBe(400);
    expect((await call(a, 'GET', '/v1/audit?action=budget.deleted')).status).toBe(400);
  });

  it('alerts through the notifier when rates are cut by more than half or a cap is lifted', async () => {
    const a = stack.idTokens.admin;
    expect((await call(a, 'PUT', '/v1/pricing/rates', { multiplier: 0 })).status).toBe(200);
    expect((await call(a, 'PUT', '/v1/budget', { budget: { action: 'block' } })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    expect(notifications.map((n) => [n.kind, n.triggerType, n.message])).toEqual([
      ['governance_change', 'rates_cut', 'you@localhost: multiplier cut from 1 to 0'],
      ['governance_change', 'cap_lifted', 'you@localhost: daily hard cap removed (was $25)'],
    ]);
    // A cap set again, then switched off through layer 1 without touching it: lifted all the same.
    notifications.length = 0;
    const capped = { budget: { dailyLimitUsd: 5, action: 'block' } };
    expect((await call(a, 'PUT', '/v1/budget', capped)).status).toBe(200);
    const off = { ...capped, policy: { layers: { financialLimits: { enabled: false } } } };
    expect((await call(a, 'PUT', '/v1/budget', off)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    expect(notifications.map((n) => [n.triggerType, n.message])).toEqual([
      ['cap_lifted', 'you@localhost: layer 1 (financial limits) disabled: hard caps no longer stop calls'],
    ]);
    const on = { policy: { layers: { financialLimits: { enabled: true } } } };
    expect((await call(a, 'PUT', '/v1/budget', on)).status).toBe(200);
  });

  it("a token with no group: the organization's first person is its admin, the next a viewer", async () => {
    const first = await stack.issueIdToken('org_fresh', 'founder');
    const second = await stack.issueIdToken('org_fresh', 'newcomer');
    expect((await call(first, 'PUT', '/v1/budget', { budget: { action: 'block' } })).status).toBe(200);
    expect((await call(second, 'POST', '/v1/keys', { name: 'x' })).status).toBe(403);
    const log = await call(first, 'GET', '/v1/audit?action=owner.claimed');
    expect(log.body.entries).toEqual([
      expect.objectContaining({ after: { sub: 'founder', email: 'founder@localhost' } }),
    ]);
    // A group decides over ownership: the owner put in `viewer` is a viewer.
    const demoted = await stack.issueIdToken('org_fresh', 'founder', 'viewer');
    expect((await call(demoted, 'PUT', '/v1/budget', { budget: { action: 'block' } })).status).toBe(403);
  });

  it('kills: a member resumes at key scope, not at organization scope', async () => {
    const key = (await call(stack.idTokens.member, 'POST', '/v1/keys', { name: 'agent' })).body;
    const enforce = (token: string, body: unknown) => call(token, 'POST', '/api/guardrails/enforce', body);
    const target = { keyId: key.key.publicId };
    const resume = {
      action: 'ACTIVE',
      triggerType: 'manual',
      observedValue: 0,
      thresholdValue: 0,
      mode: 'hard_stop',
    };
    const suspend = { ...resume, action: 'SUSPENDED' };
    expect((await enforce(stack.idTokens.member, { ...suspend, ...target, scope: 'key' })).status).toBe(200);
    expect((await enforce(stack.idTokens.member, { ...resume, ...target, scope: 'key' })).status).toBe(200);
    const org = await enforce(stack.idTokens.member, { ...resume, ...target, scope: 'organization' });
    expect(org).toEqual({ status: 403, body: roleRequired('resuming at organization scope') });
    expect((await enforce(stack.idTokens.viewer, { ...resume, ...target, scope: 'key' })).status).toBe(403);
    expect(
      (await enforce(stack.idTokens.admin, { ...resume, ...target, scope: 'organization' })).status,
    ).toBe(200);
    const log = await call(stack.idTokens.admin, 'GET', '/v1/audit?limit=20');
    const actions = log.body.entries.map((e: Json) => `${e.action} ${e.target} ${e.actor.role}`);
    expect(actions.slice(0, 5)).toEqual([
      'flag.cleared organization admin',
      'role.denied resuming at key scope viewer',
      'role.denied resuming at organization scope member',
      'flag.cleared key member',
      'flag.set key member',
    ]);
  });
});

describe('ingest-only keys', () => {
  it('get only the enforcement block from GET /v1/budget', async () => {
    const created = await call(stack.idTokens.admin, 'POST', '/v1/keys', { name: 'sdk', scopes: ['ingest'] });
    const res = await fetch(`${stack.apiUrl}/v1/budget`, {
      headers: { 'service-api-key': created.body.apiKey },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ enforcement: { blocked: false, flags: [] } });
  });
});

describe('taking back forged spend (issue 19, acceptance walk)', () => {
  it('a correction reaches layer 1 too: once resumed, the organization is not suspended again by the forged spend', async () => {
    const admin = await stack.issueIdToken('org_forged', 'owner'); // the first person: its admin
    expect(
      (await call(admin, 'PUT', '/v1/budget', { budget: { dailyLimitUsd: 5, action: 'block' } })).status,
    ).toBe(200);
    const key = (await call(admin, 'POST', '/v1/keys', { name: 'ingest', scopes: ['ingest'] })).body
      .apiKey as string;
    const ingest = async (eventId: string, completionTokens: number) => {
      const res = await fetch(`${stack.apiUrl}/api/ingest`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          apiKey: key,
          events: [
            {
              eventId,
              model: 'gpt-4o-mini',
              provider: 'openai',
              usage: { prompt_tokens: 10, completion_tokens: completionTokens },
            },
          ],
        }),
      });
      expect(res.status).toBe(200);
      await stack.drain();
    };
    const suspended = async () =>
      ((await call(admin, 'GET', '/v1/flags')).body.flags as Json[]).filter(
        (f) => f.scope === 'organization' && f.state === 'SUSPENDED',
      );
    // $12 of calls that never happened (19.99M output tokens of gpt-4o-mini at $0.60/MTok): over the $5 cap.
    await ingest('evt_forged', 19_990_000);
    expect(await suspended()).toEqual([expect.objectContaining({ triggerType: 'budget_daily_hard' })]);

    const corrected = await call(admin, 'POST', '/v1/budget/settled/correct', {
      deltaUsd: -100, // more than was forged: the figure stops at zero
      reason: 'forged telemetry from a leaked ingest key',
    });
    expect(corrected.status).toBe(200);
    expect(corrected.body.settledUsd.after.day).toBe(0);
    expect(
      (await call(admin, 'POST', '/api/guardrails/enforce', { action: 'ACTIVE', scope: 'organization' }))
        .status,
    ).toBe(200);
    // The next real call is recorded; layer 1 counts it from the corrected figure, under the cap.
    await ingest('evt_real', 100);
    expect(await suspended()).toEqual([]);
  });
});

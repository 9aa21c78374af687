import {
  enforceClearResponseSchema,
  enforcePushResponseSchema,
  enforceRequestSchema,
  enforceResponseSchema,
} from './enforce';
import { formatZodIssues } from './issues';

const apiKey = 'abn_k3v9x0q2m7za_6JpQ2mX9vT4rL8sW1yB3nC5dF7gH0jK2lM4pR6tV8xZ';

/** The sample of spec 4.2. */
const push = {
  apiKey,
  action: 'SUSPENDED',
  triggerType: 'token_loop_identical',
  observedValue: 4,
  thresholdValue: 4,
  mode: 'hard_stop',
};

const issuesOf = (input: unknown) => {
  const r = enforceRequestSchema.safeParse(input);
  return r.success ? [] : formatZodIssues(r.error);
};

describe('enforceRequestSchema', () => {
  it('accepts the spec 4.2 push sample', () => {
    expect(enforceRequestSchema.parse(push)).toEqual(push);
  });

  it('accepts THROTTLED with mode throttle, and a key prefix instead of the key', () => {
    const r = enforceRequestSchema.parse({
      ...push,
      apiKey: 'abn_k3v9x0q2m7za',
      action: 'THROTTLED',
      mode: 'throttle',
    });
    expect(r.action).toBe('THROTTLED');
  });

  it('accepts a clear and ignores push members sent with it', () => {
    expect(enforceRequestSchema.parse({ apiKey, action: 'ACTIVE' })).toEqual({ apiKey, action: 'ACTIVE' });
    expect(enforceRequestSchema.parse({ ...push, action: 'ACTIVE' })).toMatchObject({
      apiKey,
      action: 'ACTIVE',
    });
  });

  it.each([
    [{ ...push, orgId: 'org_other' }, ['orgId']],
    [{ ...push, role: 'admin', keyID: 'k3v9x0q2m7za' }, ['role', 'keyID']],
    [{ apiKey, action: 'ACTIVE', scope: 'key', sessionID: 's' }, ['sessionID']],
    [{ action: 'ACTIVE', note: 'x'.repeat(1000) }, ['note']],
  ])('refuses unknown members, naming each: %#', (body, members) => {
    expect(issuesOf(body)).toEqual(members.map((path) => ({ path, message: 'unknown field' })));
  });

  it('accepts every body the dashboard sends (resume at each scope)', () => {
    for (const body of [
      { apiKey: 'abn_k3v9x0q2m7za', action: 'ACTIVE', scope: 'organization' },
      { apiKey: 'abn_k3v9x0q2m7za', action: 'ACTIVE', scope: 'key', keyId: 'k3v9x0q2m7za' },
      {
        apiKey: 'abn_k3v9x0q2m7za',
        action: 'ACTIVE',
        scope: 'session',
        keyId: 'k3v9x0q2m7za',
        sessionId: 'agent-7',
      },
    ]) {
      expect(issuesOf(body)).toEqual([]);
    }
  });

  it('narrows the type on action', () => {
    const r = enforceRequestSchema.parse(push);
    if (r.action === 'ACTIVE') throw new Error('unexpected');
    const observed: number = r.observedValue; // push members are typed as present
    expect(observed).toBe(4);
  });

  it('requires every push member on a push', () => {
    expect(issuesOf({ apiKey, action: 'SUSPENDED' })).toEqual([
      { path: 'triggerType', message: expect.stringMatching(/required/) as unknown },
      { path: 'observedValue', message: expect.stringMatching(/required/) as unknown },
      { path: 'thresholdValue', message: expect.stringMatching(/required/) as unknown },
      { path: 'mode', message: expect.stringMatching(/required/) as unknown },
    ]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an unknown action', { action: 'PAUSED' }, 'action'],
    ['an unknown mode', { mode: 'kill' }, 'mode'],
    ['a trigger type with spaces', { triggerType: 'token loop' }, 'triggerType'],
    ['an infinite observed value', { observedValue: Infinity }, 'observedValue'],
    ['a threshold as a string', { thresholdValue: '4' }, 'thresholdValue'],
    ['a key that is not a key', { apiKey: 'abn_' }, 'apiKey'],
  ])('rejects %s', (_name, change, path) => {
    expect(issuesOf({ ...push, ...change }).map((i) => i.path)).toEqual([path]);
  });
});

describe('enforce responses', () => {
  it('describes a clear as { success: true, action: RESUMED }', () => {
    expect(enforceClearResponseSchema.parse({ success: true, action: 'RESUMED' })).toEqual({
      success: true,
      action: 'RESUMED',
    });
  });

  it('describes a push with its expiry, TTL, trigger and mode', () => {
    const body = {
      success: true,
      action: 'SUSPENDED',
      expiresAt: '2026-04-09T14:00:00.000Z',
      ttlSeconds: 7200,
      triggerType: 'token_loop_identical',
      mode: 'hard_stop',
      scope: 'organization',
      keyId: null,
      sessionId: null,
      keysFlagged: 2,
    };
    expect(enforcePushResponseSchema.parse(body)).toEqual(body);
    expect(enforceResponseSchema.parse(body)).toEqual(body);
    expect(enforcePushResponseSchema.safeParse({ ...body, expiresAt: 'tomorrow' }).success).toBe(false);
  });
});

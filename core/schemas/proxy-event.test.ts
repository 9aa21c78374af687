import { formatZodIssues } from './issues';
import { proxyEventSchema } from './proxy-event';

const event = {
  ts: '2026-04-09T12:00:00.123Z',
  org_id: 'org_acme',
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  endpoint: '/v1/messages',
  status: 200,
  tokens_in: 5400,
  tokens_out: 320,
  cost_usd: 0.021,
  latency_ms: 2310,
  fingerprint: 'sha256:' + '0f'.repeat(32),
  stream: true,
  estimated: false,
  key_prefix: 'abn_k3v9x0q2m7za',
  verified: true,
  event_id: '3b241101-e2bb-4255-8caf-4136c566a962',
};

describe('proxyEventSchema', () => {
  it('accepts a spec 2.2 event and defaults the cache and reasoning counts to 0', () => {
    expect(proxyEventSchema.parse(event)).toEqual({
      ...event,
      cache_read_tokens: 0,
      cache_write_5m_tokens: 0,
      cache_write_1h_tokens: 0,
      reasoning_tokens: 0,
    });
  });

  it('accepts a null fingerprint (body not JSON), a session and a tier', () => {
    const r = proxyEventSchema.parse({
      ...event,
      fingerprint: null,
      session_id: 's1',
      service_tier: null,
      cache_read_tokens: 5,
    });
    expect(r.fingerprint).toBeNull();
    expect(r.cache_read_tokens).toBe(5);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a timestamp without milliseconds', { ts: '2026-04-09T12:00:00Z' }, 'ts'],
    ['a timestamp with an offset', { ts: '2026-04-09T12:00:00.123+02:00' }, 'ts'],
    ['an org id without org_', { org_id: 'acme' }, 'org_id'],
    ['an empty fingerprint', { fingerprint: '' }, 'fingerprint'],
    ['a relative endpoint', { endpoint: 'v1/messages' }, 'endpoint'],
    ['a whole key as prefix', { key_prefix: 'abn_k3v9x0q2m7za_' + 'x'.repeat(43) }, 'key_prefix'],
    ['a missing verified flag', { verified: undefined }, 'verified'],
  ])('rejects %s', (_name, change, path) => {
    const r = proxyEventSchema.safeParse({ ...event, ...change });
    expect(r.success ? [] : formatZodIssues(r.error).map((i) => i.path)).toEqual([path]);
  });

  it('refuses unknown fields (the relay is the only producer)', () => {
    const r = proxyEventSchema.safeParse({ ...event, prompt: 'x' });
    expect(r.success ? [] : formatZodIssues(r.error)).toEqual([{ path: 'prompt', message: 'unknown field' }]);
  });
});

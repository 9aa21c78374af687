/**
 * Issue 19.6 at the relay: a loop that renames its session on every call is refused before the provider
 * is contacted, on the call after the pipeline's verdict call, with the guard's answer to the flag the
 * pipeline writes for it; the organization's own layer-2 policy decides, read once per TTL.
 */
import { randomBytes } from 'node:crypto';
import { flagKeyFor, generateApiKey, hashApiKey } from '../../core/keys';
import { MemoryApiKeyStore, MemoryEventSink, MemoryLoopRunStore } from '../../local/proxy/memory-stores';
import { startMockProviders, type MockProviders } from '../../local/mock-providers';
import { EdgeGuard, type FlagSource } from '../edge-guard/guard';
import { MemoryMetrics } from '../edge-guard/metrics';
import { ApiKeyAuthenticator } from '../shared/api-key-auth';
import type { OrgConfig } from '../shared/stores/org-config-store';
import type { LoopRunStore } from '../shared/stores/loop-run-store';
import type { FlagRecord } from '../shared/stores/flag-store';
import { InlineLoopCheck, VERDICT_LOOKUP_INTERVAL_MS, VERDICT_LOOKUP_TIMEOUT_MS } from './loop-check';
import { TripLogVerdicts } from './loop-verdicts';
import type { TripRecord } from '../shared/stores/trip-log';
import { OrgPolicyCache } from './org-policy-cache';
import { Relay, type RelayResponder } from './relay';

const PEPPER = 'loop-check-pepper-0123456789abcdef012345';
const T0 = Date.UTC(2026, 10, 25, 12);

class Flags implements FlagSource {
  readonly items = new Map<string, unknown>();
  getMany(flagKeys: readonly string[]): Promise<unknown[]> {
    return Promise.resolve(flagKeys.map((k) => this.items.get(k)).filter((i) => i !== undefined));
  }
}

class Configs {
  readonly items = new Map<string, OrgConfig>();
  reads = 0;
  get(orgId: string): Promise<OrgConfig | undefined> {
    this.reads++;
    return Promise.resolve(this.items.get(orgId));
  }
}

interface Answer {
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
}

function collect(): { responder: RelayResponder; out: Answer } {
  const out: Answer = { status: 0, headers: {}, body: '' };
  return {
    out,
    responder: {
      keepsContentLength: true,
      start: (status, headers) => {
        out.status = status;
        out.headers = headers;
        return {
          write: (c: Buffer) => ((out.body += c.toString()), true),
          end: (c?: Buffer | string) => void (c !== undefined && (out.body += c.toString())),
          once: () => undefined,
          destroy: () => undefined,
        };
      },
    },
  };
}

let mock: MockProviders;
const keys = new MemoryApiKeyStore();
const keyA = generateApiKey((n) => randomBytes(n));
const keyB = generateApiKey((n) => randomBytes(n));

beforeAll(async () => {
  mock = await startMockProviders({ port: 0 });
  for (const k of [keyA, keyB]) {
    await keys.create({
      publicId: k.publicId,
      orgId: 'org_loop',
      prefix: k.prefix,
      hash: hashApiKey(k.apiKey, PEPPER),
      name: 'agent',
      createdAt: '',
      revokedAt: null,
    });
  }
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

let clock = T0;
const relays: Relay[] = [];
afterEach(() => relays.splice(0).forEach((r) => r.destroy()));

class Trips {
  readonly items: TripRecord[] = [];
  reads = 0;
  /** Real milliseconds each read takes (a busy store). */
  delayMs = 0;
  recent(_orgId: string, limit: number): Promise<TripRecord[]> {
    this.reads++;
    const items = [...this.items].reverse().slice(0, limit);
    if (this.delayMs === 0) return Promise.resolve(items);
    return new Promise((resolve) => setTimeout(() => resolve(items), this.delayMs));
  }
  /** What the guardrail consumer records when it writes the loop's flag. */
  trip(keyId: string, atMs: number): void {
    this.items.push({
      at: new Date(atMs).toISOString(),
      layer: 'identicalLoop',
      triggerType: 'token_loop_identical',
      observedValue: 4,
      thresholdValue: 4,
      mode: 'hard_stop',
      action: 'SUSPENDED',
      keyId,
      sessionId: null,
      message: 'Identical request sent 4 times in a row across 4 or more sessions',
    });
  }
}

function relayWith(
  configs: Configs,
  flags?: Flags,
  trips?: Trips,
  shared?: LoopRunStore,
  verdictTimeoutMs?: number,
) {
  clock = T0;
  const now = () => clock;
  const metrics = new MemoryMetrics();
  const relay = new Relay({
    keys: new ApiKeyAuthenticator({ keys, pepper: async () => PEPPER, now }),
    sink: new MemoryEventSink(),
    metrics,
    now,
    upstreams: mock.baseUrls,
    loops: new InlineLoopCheck({
      policies: new OrgPolicyCache({ config: configs, now }),
      now,
      metrics,
      ...(trips ? { verdicts: new TripLogVerdicts(trips) } : {}),
      ...(shared ? { shared } : {}),
      ...(verdictTimeoutMs !== undefined ? { verdictTimeoutMs } : {}),
    }),
    ...(flags ? { flags: new EdgeGuard({ flags, pepper: async () => PEPPER, now, cacheTtlMs: 0 }) } : {}),
  });
  relays.push(relay);
  return { relay, metrics };
}

function call(
  relay: Relay,
  apiKey: string,
  session: string | undefined,
  content = 'retry the failing step',
): Promise<Answer> {
  const c = collect();
  return relay
    .handle(
      {
        method: 'POST',
        url: '/openai/v1/chat/completions',
        headers: {
          'service-api-key': apiKey,
          ...(session === undefined ? {} : { 'x-spendguard-session': session }),
        },
        body: Buffer.from(JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] })),
      },
      c.responder,
    )
    .then(() => c.out);
}

async function loop(relay: Relay, n: number, apiKey = keyA.apiKey, prefix = 'attempt'): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) {
    statuses.push((await call(relay, apiKey, `${prefix}-${i}`)).status);
    clock += 5; // a provider that answers at once
  }
  return statuses;
}

const firstRefused = (statuses: number[]) => statuses.indexOf(429) + 1;

describe('the relay’s in-line loop check (issue 19.6)', () => {
  it('refuses a renamed-session loop from the 5th call (the default 4 in a row), before the provider', async () => {
    const configs = new Configs();
    const { relay, metrics } = relayWith(configs);
    const statuses = await loop(relay, 20);
    expect(firstRefused(statuses)).toBe(5);
    expect(statuses.slice(4).every((s) => s === 429)).toBe(true);
    expect(mock.requests()).toHaveLength(4);
    expect(metrics.get('RelayLoopHold', { Scope: 'key' })).toBe(1);
    expect(metrics.get('RelayLoopRefused', { Scope: 'key' })).toBe(16);
    // another key of the organization, and another request of the key... the key is held: the flag's scope
    expect((await call(relay, keyB.apiKey, 'attempt-0')).status).toBe(200);
    expect((await call(relay, keyA.apiKey, 'calm', 'something else')).status).toBe(429);
    // the policy was read once: no store round trip per call
    expect(configs.reads).toBe(1);
  });

  /** A tight loop as Lambda spreads it: each call lands on the container that is not finishing the last one. */
  async function alternating(containers: Relay[], n: number): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) {
      statuses.push((await call(containers[i % containers.length]!, keyA.apiKey, `attempt-${i}`)).status);
      clock += 5;
    }
    return statuses;
  }

  it('a loop spread over two containers is refused from the 5th call, as on one, when they share the run', async () => {
    const configs = new Configs();
    const store = new MemoryLoopRunStore();
    const a = relayWith(configs, undefined, undefined, store);
    const b = relayWith(configs, undefined, undefined, store);
    const statuses = await alternating([a.relay, b.relay], 12);
    expect(firstRefused(statuses)).toBe(5);
    expect(statuses.slice(4).every((s) => s === 429)).toBe(true);
    expect(mock.requests()).toHaveLength(4);
    // Every forwarded call and the one refused by the shared count wrote; none after the holds.
    expect(store.writes).toBe(5);
  });

  it('spread over as many containers as it has calls (other keys keep the rest busy): refused at the 5th; alone each would serve them all', async () => {
    const shared = new MemoryLoopRunStore();
    const many = Array.from(
      { length: 8 },
      () => relayWith(new Configs(), undefined, undefined, shared).relay,
    );
    expect(firstRefused(await alternating(many, 8))).toBe(5);
    const fresh = new MemoryLoopRunStore();
    const withShared = [0, 1, 2].map(() => relayWith(new Configs(), undefined, undefined, fresh).relay);
    expect(firstRefused(await alternating(withShared, 15))).toBe(5);
    const alone = [0, 1, 2].map(() => relayWith(new Configs()).relay);
    expect(firstRefused(await alternating(alone, 15))).toBe(13);
  });

  it('after the pipeline took over and a Resume, a loop spread over two containers is counted from zero again', async () => {
    const trips = new Trips();
    const store = new MemoryLoopRunStore();
    const a = relayWith(new Configs(), undefined, trips, store);
    const b = relayWith(new Configs(), undefined, trips, store);
    expect(firstRefused(await alternating([a.relay, b.relay], 8))).toBe(5);
    // The pipeline flagged; a person resumes; the flag caches have expired: both holds end on their next
    // call, 1 s after the loop's last call (within the shared run's 2 s idle window).
    trips.trip(keyA.publicId, clock - 200);
    clock += 1_000;
    const again: number[] = [];
    for (let i = 0; i < 6; i++) {
      again.push((await call([a.relay, b.relay][i % 2]!, keyA.apiKey, `resumed-${i}`)).status);
      clock += 5;
    }
    // Without the shared run starting again, the third call would meet the count that stopped the loop.
    expect(again).toEqual([200, 200, 200, 200, 429, 429]);
  });

  it('after a Resume (its shared runs restarted), a container that never held serves the loop from call 1', async () => {
    const store = new MemoryLoopRunStore();
    const [a, b, c] = [0, 1, 2].map(() => relayWith(new Configs(), undefined, undefined, store).relay);
    // a: 1, 4 — b: 2, 5 — c: 3; the 5th is refused (shared count 5), c never held.
    expect(await alternating([a!, b!, c!, a!, b!], 5)).toEqual([200, 200, 200, 200, 429]);
    // The enforce function restarts the key's shared runs at the Resume.
    await store.resetAll('org_loop', keyA.publicId);
    const again: number[] = [];
    for (let i = 0; i < 5; i++) {
      again.push((await call(c!, keyA.apiKey, `resumed-${i}`)).status);
      clock += 5;
    }
    // c's own count still held 3 calls from before the Resume: the shared count decides.
    expect(again).toEqual([200, 200, 200, 200, 429]);
  });

  it('distinct requests never make a run, and a store that fails leaves each container its own count', async () => {
    const store = new MemoryLoopRunStore();
    const a = relayWith(new Configs(), undefined, undefined, store);
    for (let i = 0; i < 6; i++) expect((await call(a.relay, keyA.apiKey, 's', `step ${i}`)).status).toBe(200);
    expect([...store.runs.values()].map((r) => r.count)).toEqual([1]);
    // A warm container's ordinary traffic costs one write: the first call; each later one follows
    // another request here.
    expect(store.writes).toBe(1);

    const failing: LoopRunStore = {
      add: () => Promise.reject(new Error('throttled')),
      reset: () => Promise.reject(new Error('throttled')),
      resetAll: () => Promise.reject(new Error('throttled')),
    };
    const b = relayWith(new Configs(), undefined, undefined, failing);
    const statuses = await loop(b.relay, 6);
    expect(firstRefused(statuses)).toBe(5);
    // calls 1–4 tried the store; the 5th met the container's own hold
    expect(b.metrics.get('RelayLoopSharedFailed')).toBe(4);
  });

  it('answers exactly what the guard answers for the key-scope token_loop_identical flag the pipeline writes', async () => {
    const { relay } = relayWith(new Configs());
    await loop(relay, 4);
    const inline = await call(relay, keyA.apiKey, 'attempt-4');

    const flags = new Flags();
    const flagKey = flagKeyFor(keyA.prefix, PEPPER);
    const flag: FlagRecord = {
      flagKey,
      orgId: 'org_loop',
      scope: 'key',
      keyId: keyA.publicId,
      sessionId: null,
      state: 'SUSPENDED',
      triggerType: 'token_loop_identical',
      observedValue: 4,
      thresholdValue: 4,
      mode: 'hard_stop',
      setAt: new Date(clock).toISOString(),
      // the pipeline's flag lifetime for a suspension: 2 h (spec 3)
      expiresAt: Math.floor((clock - 5) / 1000) + 2 * 3600,
    };
    flags.items.set(flagKey, flag);
    const guard = new EdgeGuard({ flags, pepper: async () => PEPPER, now: () => clock });
    const decision = await guard.check(keyA.apiKey, 'attempt-4');
    expect(decision.action).toBe('respond');
    if (decision.action !== 'respond') return;
    const { 'content-length': length, ...headers } = inline.headers;
    expect(inline.status).toBe(decision.response.status);
    expect(headers).toEqual(decision.response.headers);
    expect(inline.body).toBe(decision.response.body);
    expect(Number(length)).toBe(Buffer.byteLength(inline.body));
    expect(JSON.parse(inline.body)).toMatchObject({
      error: { type: 'budget_exceeded', code: 'token_loop_identical' },
    });
    expect(headers['x-should-retry']).toBe('false');
  });

  it('applies the organization’s own policy: its threshold, its scope, and off when disabled', async () => {
    const configs = new Configs();
    const put = (policy: unknown) =>
      configs.items.set('org_loop', { budget: {}, policy, updatedAt: new Date(T0).toISOString() });

    put({ identicalLoop: { consecutive: 6 } });
    let { relay } = relayWith(configs);
    expect(firstRefused(await loop(relay, 20))).toBe(7);

    put({ identicalLoop: { enabled: false } });
    ({ relay } = relayWith(configs));
    expect(firstRefused(await loop(relay, 20))).toBe(0);

    put({ identicalLoop: { mode: 'alert' } });
    ({ relay } = relayWith(configs));
    expect(firstRefused(await loop(relay, 20))).toBe(0);

    // organization scope: every key of the organization is held
    put({ identicalLoop: { scope: 'organization' } });
    ({ relay } = relayWith(configs));
    expect(firstRefused(await loop(relay, 6))).toBe(5);
    expect((await call(relay, keyB.apiKey, undefined, 'unrelated')).status).toBe(429);

    // session scope, one session looping: only that session is held (the pipeline's session verdict)
    put({});
    ({ relay } = relayWith(configs));
    const same: number[] = [];
    for (let i = 0; i < 6; i++) same.push((await call(relay, keyA.apiKey, 'one')).status);
    expect(same).toEqual([200, 200, 200, 200, 429, 429]);
    expect((await call(relay, keyA.apiKey, 'two', 'another task')).status).toBe(200);
  });

  it('a policy change reaches a warm container after the cache TTL, without a read per call', async () => {
    const configs = new Configs();
    configs.items.set('org_loop', {
      budget: {},
      policy: { identicalLoop: { enabled: false } },
      updatedAt: '',
    });
    const { relay } = relayWith(configs);
    expect(firstRefused(await loop(relay, 8))).toBe(0);
    configs.items.set('org_loop', { budget: {}, policy: {}, updatedAt: '' });
    clock += 1_000; // the TTL: the next call uses the cached policy and refreshes it in the background
    await call(relay, keyA.apiKey, 'x', 'another request');
    await new Promise((r) => setImmediate(r));
    expect(firstRefused(await loop(relay, 8, keyA.apiKey, 'again'))).toBe(5);
    expect(configs.reads).toBe(2);
  });

  it('a hold ends when the relay sees the pipeline’s flag, so a resume is not met by an old count', async () => {
    const flags = new Flags();
    const { relay } = relayWith(new Configs(), flags);
    expect(firstRefused(await loop(relay, 6))).toBe(5);
    const flagKey = flagKeyFor(keyA.prefix, PEPPER);
    flags.items.set(flagKey, {
      flagKey,
      orgId: 'org_loop',
      scope: 'key',
      keyId: keyA.publicId,
      sessionId: null,
      state: 'SUSPENDED',
      triggerType: 'token_loop_identical',
      observedValue: 4,
      thresholdValue: 4,
      mode: 'hard_stop',
      setAt: new Date(clock).toISOString(),
      expiresAt: Math.floor(clock / 1000) + 7200,
    } satisfies FlagRecord);
    expect((await call(relay, keyA.apiKey, 'attempt-6')).status).toBe(429); // the flag's refusal
    flags.items.delete(flagKey); // a person resumes the key
    clock += 10;
    // well within the 10 s hold: the flag was seen, so the hold is over and the count starts again
    expect(await loop(relay, 5, keyA.apiKey, 'after')).toEqual([200, 200, 200, 200, 429]);
  });

  it('a hold ends once the pipeline’s trip is older than the flag caches: a Resume lets the next call through', async () => {
    const trips = new Trips();
    const { relay } = relayWith(new Configs(), undefined, trips);
    expect(firstRefused(await loop(relay, 8))).toBe(5);
    // held calls asked the trip log once per interval at most (8 calls in 40 ms: one lookup)
    expect(trips.reads).toBe(1);
    const heldAt = T0 + 3 * 5;
    // another key's trip, or one from before the hold, does not end it
    trips.trip(keyB.publicId, clock);
    trips.trip(keyA.publicId, heldAt - 5_000);
    clock += VERDICT_LOOKUP_INTERVAL_MS;
    expect((await call(relay, keyA.apiKey, 'held-1')).status).toBe(429);
    // the pipeline flags 800 ms after the verdict call: a flag cache may not show it yet, so still held
    trips.trip(keyA.publicId, heldAt + 800);
    clock = heldAt + 800 + 1_000;
    expect((await call(relay, keyA.apiKey, 'held-2')).status).toBe(429);
    // a person resumes; the next call after the flag caches expired passes, well within the 10 s hold
    clock = heldAt + 800 + 1_600;
    expect(clock - heldAt).toBeLessThan(10_000);
    expect(await loop(relay, 5, keyA.apiKey, 'resumed')).toEqual([200, 200, 200, 200, 429]);
    // one lookup per held call here, each at least an interval apart; the new hold's first call asked too
    expect(trips.reads).toBe(5);
  });

  it('a trip log slower than the lookup timeout keeps the hold (refused); a longer timeout, as the local proxy’s, lets the Resume through', async () => {
    const trips = new Trips();
    const held = async (verdictTimeoutMs?: number) => {
      const { relay } = relayWith(new Configs(), undefined, trips, undefined, verdictTimeoutMs);
      expect(firstRefused(await loop(relay, 6))).toBe(5);
      trips.trip(keyA.publicId, clock); // the pipeline flagged; a person resumes
      clock += 1_200; // past the flag caches
      return relay;
    };
    trips.delayMs = VERDICT_LOOKUP_TIMEOUT_MS + 150;
    expect((await call(await held(), keyA.apiKey, 'resumed-0')).status).toBe(429);
    expect((await call(await held(VERDICT_LOOKUP_TIMEOUT_MS + 1_000), keyA.apiKey, 'resumed-0')).status).toBe(
      200,
    );
  });

  it('reads trips of that key only, from the hold’s start, and an organization hold any key’s', async () => {
    const trips = new Trips();
    const verdicts = new TripLogVerdicts(trips);
    trips.trip(keyB.publicId, T0);
    expect(await verdicts.verdictSince('org_loop', keyA.publicId, T0 - 1000)).toBeUndefined();
    expect(await verdicts.verdictSince('org_loop', null, T0 - 1000)).toBe(T0);
    trips.trip(keyA.publicId, T0 - 10_000);
    expect(await verdicts.verdictSince('org_loop', keyA.publicId, T0 - 1000)).toBeUndefined();
    trips.trip(keyA.publicId, T0 + 2);
    expect(await verdicts.verdictSince('org_loop', keyA.publicId, T0 - 1000)).toBe(T0 + 2);
  });

  it('without seeing the flag, a hold lasts 10 s; then the count starts again', async () => {
    const { relay } = relayWith(new Configs());
    expect(firstRefused(await loop(relay, 6))).toBe(5);
    clock += 9_900;
    expect((await call(relay, keyA.apiKey, 'late', 'anything')).status).toBe(429);
    clock += 200;
    expect(await loop(relay, 5, keyA.apiKey, 'after')).toEqual([200, 200, 200, 200, 429]);
  });

  it('counts a large body too (fingerprinted after its answer), before the client’s next call', async () => {
    const { relay } = relayWith(new Configs());
    // over the 256 KiB fingerprinted while the provider works: counted when the call settles
    const content = 'the same very long document, again. '.repeat(8_000);
    expect(content.length).toBeGreaterThan(256 * 1024);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await call(relay, keyA.apiKey, `big-${i}`, content)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });

  it('an unreadable policy fails open (no check), and does not cost a read per call', async () => {
    let reads = 0;
    const broken = {
      get: () => {
        reads++;
        return Promise.reject(new Error('ProvisionedThroughputExceeded'));
      },
    };
    clock = T0;
    const now = () => clock;
    const relay = new Relay({
      keys: new ApiKeyAuthenticator({ keys, pepper: async () => PEPPER, now }),
      sink: new MemoryEventSink(),
      now,
      upstreams: mock.baseUrls,
      loops: new InlineLoopCheck({ policies: new OrgPolicyCache({ config: broken, now }), now }),
    });
    relays.push(relay);
    expect(firstRefused(await loop(relay, 8))).toBe(0);
    expect(reads).toBe(1);
  });
});

/**
 * A local stand-in for the Spendguard API: records every `POST /v1/events` batch, answers
 * `GET /v1/health` and `GET /v1/budget`, and can be told to fail (status codes, Retry-After, hangs).
 *
 * It speaks the sprint's contracts (CONTRACTS.md §1, §2) when asked to:
 * - `enforcement`: every `POST /v1/events` answer carries `{ status, count, enforcement }` built from
 *   `flags` as they stood when the batch arrived (a real ingest answers before its consumers trip);
 *   `loopAfter: n` trips a session flag (layer 2) after n consecutive identical fingerprints of a session;
 * - `leases`: `POST /v1/budget/lease` and `/release` over a daily cap (`leaseCapUsd`), exact in nano-USD:
 *   settled = reported consumption, a holder's slice = its `reservedUsd` + `needUsd` + min(`sliceUsd`,
 *   what is left of the cap past settled spend, others' slices and those), exhausted when the need does not
 *   fit (or, without one, nothing is left). Without `leases`, both routes answer 404 (an older backend).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const TEST_API_KEY = 'abn_k3v9x0q2m7za_' + '6JpQ2wErTyUiOpAsDfGhJkLzXcVbNm1234567890Abc';

export interface IngestBatch {
  readonly headers: IncomingMessage['headers'];
  readonly raw: string;
  readonly body: { events: Array<Record<string, unknown>>; droppedEvents?: number };
  readonly at: number;
}

/** A kill flag as the `enforcement` block lists it (CONTRACTS §1). */
export interface FakeFlag {
  scope: 'organization' | 'key' | 'session';
  state: 'SUSPENDED' | 'THROTTLED';
  sessionId?: string | null;
  keyId?: string | null;
  triggerType: string;
  expiresAt: string;
  retryAfterSeconds: number;
}

/** One lease request as received. */
export interface LeaseCall {
  readonly route: 'lease' | 'release';
  readonly body: {
    holderId: string;
    consumedUsd: number;
    spendRateUsdPerMin?: number;
    reservedUsd?: number;
    needUsd?: number;
  };
  readonly at: number;
}

/** A scripted answer to the next POST /v1/events. */
export type IngestAnswer = { status: number; headers?: Record<string, string> } | 'hang' | 'reset';

export interface FakeIngest {
  readonly url: string;
  readonly batches: IngestBatch[];
  /** Every POST attempt, accepted or not. */
  readonly attempts: Array<{ at: number; status: number | 'hang' | 'reset' }>;
  /** Answers for the next POSTs, in order; afterwards 202. */
  readonly script: IngestAnswer[];
  /** Body of GET /v1/budget (status 200), or a status to answer instead. */
  budget: unknown;
  budgetStatus: number;
  budgetRequests: number;
  /** Send the `enforcement` block in event answers (and lease answers). */
  enforcement: boolean;
  /** The flags in force. */
  flags: FakeFlag[];
  /** Trip a session flag after this many consecutive identical fingerprints of one session (0: never). */
  loopAfter: number;
  /** When each session was tripped (epoch ms). */
  readonly trippedAt: Map<string, number>;
  /** Serve the lease routes (else 404). */
  leases: boolean;
  /** Hard daily cap for leases, USD; null: `capped: false`. */
  leaseCapUsd: number | null;
  /** Largest slice granted. */
  sliceUsd: number;
  /** Capped answers say the organization allows deferred billing (`allowDeferredBilling: true`). */
  allowDeferredBilling: boolean;
  ttlSeconds: number;
  /** A status to answer lease requests with instead (e.g. 503). */
  leaseStatus: number;
  /** The next n lease requests answer 503 with `Retry-After: 1` (the route's answer to contention). */
  leaseBusyAnswers: number;
  readonly leaseCalls: LeaseCall[];
  /** Lease (not release) answers are computed and sent this long after the request arrived. */
  leaseDelayMs: number;
  /** The holders the fake counts a slice for now. */
  holders(): string[];
  /** Consumption reported so far, nano-USD. */
  settledNanos(): number;
  /** Back to the defaults: no flags, no leases, nothing recorded. */
  reset(): void;
  /** A session flag for `sessionId` (or an organization flag), expiring in two hours. */
  flag(scope: FakeFlag['scope'], sessionId?: string): FakeFlag;
  /** All events accepted so far. */
  events(): Array<Record<string, unknown>>;
  /** Resolves when at least `n` events were accepted (or rejects after `timeoutMs`). */
  waitForEvents(n: number, timeoutMs?: number): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

export async function startFakeIngest(): Promise<FakeIngest> {
  const batches: IngestBatch[] = [];
  const attempts: FakeIngest['attempts'] = [];
  const script: IngestAnswer[] = [];
  const waiters: Array<() => void> = [];
  const self = {
    budget: { status: 'ok', flag: null, spend: { todayUsd: 1, monthUsd: 2 } } as unknown,
    budgetStatus: 200,
    budgetRequests: 0,
    enforcement: false,
    flags: [] as FakeFlag[],
    loopAfter: 0,
    leases: false,
    leaseCapUsd: null as number | null,
    sliceUsd: 0.02,
    allowDeferredBilling: false,
    ttlSeconds: 30,
    leaseStatus: 200,
    leaseBusyAnswers: 0,
    leaseDelayMs: 0,
  };
  const trippedAt = new Map<string, number>();
  const leaseCalls: LeaseCall[] = [];
  const loops = new Map<string, { fingerprint: unknown; count: number }>();
  let settled = 0;
  /** Holders seen before the last reset(). */
  const retired = new Set<string>();
  const retiredAnswer = (body: LeaseCall['body']) => ({
    holderId: body.holderId,
    ttlSeconds: self.ttlSeconds,
    retryAfterSeconds: null,
    capped: false,
    exhausted: false,
    grantedUsd: 0,
    expiresAt: new Date(Date.now() + self.ttlSeconds * 1000).toISOString(),
  });
  const slices = new Map<string, number>();
  const flag = (scope: FakeFlag['scope'], sessionId?: string): FakeFlag => ({
    scope,
    state: 'SUSPENDED',
    sessionId: sessionId ?? null,
    keyId: scope === 'organization' ? null : 'k3v9x0q2m7za',
    triggerType: scope === 'session' ? 'token_loop_identical' : 'hard_cap_daily',
    expiresAt: new Date(Date.now() + 7_200_000).toISOString(),
    retryAfterSeconds: 7200,
  });
  const enforcementBlock = (): unknown => ({
    blocked: self.flags.some((f) => f.state === 'SUSPENDED' && f.scope !== 'session'),
    flags: self.flags.map((f) => ({ ...f })),
  });
  /** Layer 2 of the guardrails, in miniature: consecutive identical fingerprints per session. */
  const detectLoops = (events: Array<Record<string, unknown>>): void => {
    if (self.loopAfter <= 0) return;
    for (const e of events) {
      const sid = typeof e.sessionId === 'string' ? e.sessionId : '';
      const last = loops.get(sid);
      const count = last !== undefined && last.fingerprint === e.fingerprint ? last.count + 1 : 1;
      loops.set(sid, { fingerprint: e.fingerprint, count });
      if (count >= self.loopAfter && !trippedAt.has(sid)) {
        trippedAt.set(sid, Date.now());
        self.flags.push(flag('session', sid));
      }
    }
  };
  const nanos = (usd: number): number => Math.round(usd * 1e9);
  const leaseAnswer = (route: 'lease' | 'release', body: LeaseCall['body']): unknown => {
    // A holder of an earlier test whose request lands after reset() (its shutdown cut short on a busy
    // machine) counts for nothing here: each test starts from an empty counter.
    if (retired.has(body.holderId)) return route === 'release' ? { released: true } : retiredAnswer(body);
    settled += nanos(body.consumedUsd);
    slices.delete(body.holderId);
    if (route === 'release') return { released: true };
    const base = { holderId: body.holderId, ttlSeconds: self.ttlSeconds, retryAfterSeconds: null };
    const expiresAt = new Date(Date.now() + self.ttlSeconds * 1000).toISOString();
    const extra = self.enforcement ? { enforcement: enforcementBlock() } : {};
    if (self.leaseCapUsd === null) {
      return { ...base, capped: false, exhausted: false, grantedUsd: 0, expiresAt, ...extra };
    }
    if (self.allowDeferredBilling) Object.assign(extra, { allowDeferredBilling: true });
    // The server's grant (core/leases/lease-state grantLease): reservations in flight stay covered; the
    // need of waiting calls is granted on top, or the answer is exhausted.
    const others = [...slices.values()].reduce((a, b) => a + b, 0);
    const left = nanos(self.leaseCapUsd) - settled - others;
    const reserved = nanos(body.reservedUsd ?? 0);
    const need = nanos(body.needUsd ?? 0);
    const spare = left - reserved - need;
    const exhausted = need > 0 ? spare < 0 : left - reserved <= 0;
    const slice = spare < 0 ? reserved : reserved + need + Math.min(nanos(self.sliceUsd), spare);
    if (slice > 0) slices.set(body.holderId, slice);
    if (exhausted) {
      const midnight = (Math.floor(Date.now() / 86_400_000) + 1) * 86_400_000;
      // As the server: retryable when only other holders' slices stand between the call and the room.
      const retryable = nanos(self.leaseCapUsd) - settled - reserved - need >= 0;
      return {
        ...base,
        capped: true,
        exhausted: true,
        retryable,
        grantedUsd: slice / 1e9,
        expiresAt,
        retryAfterSeconds: retryable ? self.ttlSeconds : Math.ceil((midnight - Date.now()) / 1000),
        ...extra,
      };
    }
    return { ...base, capped: true, exhausted: false, grantedUsd: slice / 1e9, expiresAt, ...extra };
  };
  // Sockets kept a minute (Node's default is 5 s): on a loaded machine a stalled event loop can let the
  // client reuse a socket the server has just closed, and the request fails without reaching the fake.
  // The likely cause of a flake seen once under `npm run test:load` (a lease request lost, the call then
  // waited out its 6 s and got the retryable 429 the test did not expect).
  const server: Server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'GET' && path === '/v1/health') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ status: 'ok', version: 'test', time: new Date().toISOString(), checks: {} }),
        );
        return;
      }
      if (req.method === 'GET' && path === '/v1/budget') {
        self.budgetRequests++;
        if (req.headers['service-api-key'] !== TEST_API_KEY) {
          res.writeHead(401, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              error: { code: 'unauthorized', message: 'API key is unknown, malformed or revoked' },
            }),
          );
          return;
        }
        res.writeHead(self.budgetStatus, { 'content-type': 'application/json' });
        res.end(JSON.stringify(self.budget));
        return;
      }
      if (req.method === 'POST' && (path === '/v1/budget/lease' || path === '/v1/budget/lease/release')) {
        const route = path.endsWith('release') ? 'release' : 'lease';
        const status = !self.leases
          ? 404
          : req.headers['service-api-key'] !== TEST_API_KEY
            ? 401
            : self.leaseStatus;
        if (status === 200 && self.leaseBusyAnswers > 0) {
          // The real route's answer to contention on the budget item.
          self.leaseBusyAnswers--;
          res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
          res.end(JSON.stringify({ error: { message: 'budget lease item busy; retry', type: 'api_error' } }));
          return;
        }
        if (status !== 200) {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: 'scripted', type: 'api_error', code: 'x' } }));
          return;
        }
        const body = JSON.parse(raw) as LeaseCall['body'];
        leaseCalls.push({ route, body, at: Date.now() });
        const answer = (): void => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(leaseAnswer(route, body)));
        };
        if (route === 'lease' && self.leaseDelayMs > 0) setTimeout(answer, self.leaseDelayMs);
        else answer();
        return;
      }
      if (req.method === 'POST' && path === '/v1/events') {
        const answer = script.shift();
        if (answer === 'hang') {
          attempts.push({ at: Date.now(), status: 'hang' });
          return; // never answers
        }
        if (answer === 'reset') {
          attempts.push({ at: Date.now(), status: 'reset' });
          req.socket.destroy();
          return;
        }
        const status = answer?.status ?? 202;
        attempts.push({ at: Date.now(), status });
        // The flags as they stood when the batch arrived: a trip it causes shows in the next answer.
        const enforcement = self.enforcement ? { enforcement: enforcementBlock() } : {};
        if (status === 202) {
          detectLoops((JSON.parse(raw) as IngestBatch['body']).events);
          batches.push({
            headers: req.headers,
            raw,
            body: JSON.parse(raw) as IngestBatch['body'],
            at: Date.now(),
          });
          waiters.splice(0).forEach((w) => w());
        }
        res.writeHead(status, { 'content-type': 'application/json', ...(answer?.headers ?? {}) });
        res.end(
          JSON.stringify(
            status === 202
              ? { status: 'accepted', count: 1, ...enforcement }
              : { error: { code: 'x', message: 'scripted' } },
          ),
        );
        return;
      }
      res.writeHead(404);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const events = (): Array<Record<string, unknown>> => batches.flatMap((b) => b.body.events);
  return {
    url,
    batches,
    attempts,
    script,
    get budget() {
      return self.budget;
    },
    set budget(v: unknown) {
      self.budget = v;
    },
    get budgetStatus() {
      return self.budgetStatus;
    },
    set budgetStatus(v: number) {
      self.budgetStatus = v;
    },
    get budgetRequests() {
      return self.budgetRequests;
    },
    get enforcement() {
      return self.enforcement;
    },
    set enforcement(v: boolean) {
      self.enforcement = v;
    },
    get flags() {
      return self.flags;
    },
    set flags(v: FakeFlag[]) {
      self.flags = v;
    },
    get loopAfter() {
      return self.loopAfter;
    },
    set loopAfter(v: number) {
      self.loopAfter = v;
    },
    trippedAt,
    get leases() {
      return self.leases;
    },
    set leases(v: boolean) {
      self.leases = v;
    },
    get leaseCapUsd() {
      return self.leaseCapUsd;
    },
    set leaseCapUsd(v: number | null) {
      self.leaseCapUsd = v;
    },
    get sliceUsd() {
      return self.sliceUsd;
    },
    set sliceUsd(v: number) {
      self.sliceUsd = v;
    },
    get allowDeferredBilling() {
      return self.allowDeferredBilling;
    },
    set allowDeferredBilling(v: boolean) {
      self.allowDeferredBilling = v;
    },
    get ttlSeconds() {
      return self.ttlSeconds;
    },
    set ttlSeconds(v: number) {
      self.ttlSeconds = v;
    },
    get leaseBusyAnswers() {
      return self.leaseBusyAnswers;
    },
    set leaseBusyAnswers(v: number) {
      self.leaseBusyAnswers = v;
    },
    get leaseStatus() {
      return self.leaseStatus;
    },
    get leaseDelayMs() {
      return self.leaseDelayMs;
    },
    set leaseDelayMs(v: number) {
      self.leaseDelayMs = v;
    },
    holders: () => [...slices.keys()],
    set leaseStatus(v: number) {
      self.leaseStatus = v;
    },
    leaseCalls,
    settledNanos: () => settled,
    flag,
    reset() {
      for (const c of leaseCalls) retired.add(c.body.holderId);
      for (const holder of slices.keys()) retired.add(holder);
      batches.length = 0;
      attempts.length = 0;
      script.length = 0;
      leaseCalls.length = 0;
      trippedAt.clear();
      loops.clear();
      slices.clear();
      settled = 0;
      Object.assign(self, {
        budget: { status: 'ok', flag: null },
        budgetStatus: 200,
        enforcement: false,
        flags: [],
        loopAfter: 0,
        leases: false,
        leaseCapUsd: null,
        sliceUsd: 0.02,
        allowDeferredBilling: false,
        ttlSeconds: 30,
        leaseStatus: 200,
        leaseBusyAnswers: 0,
        leaseDelayMs: 0,
      });
    },
    events,
    waitForEvents(n, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${events().length} of ${n} events arrived`)),
          timeoutMs,
        );
        const check = (): void => {
          if (events().length >= n) {
            clearTimeout(timer);
            resolve(events());
          } else waiters.push(check);
        };
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

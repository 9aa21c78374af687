/**
 * A discrete-event simulation of budget admission in the deployment (design decision 14): N relay
 * containers (Lambda: one call at a time each, frozen while idle so no timer runs, recycled), every one a
 * lease holder running the real core modules (`LeaseHolderState`, `planLease`, `applyDelta`), against a
 * model of the DynamoDB counter item: read and write latencies drawn from a long-tailed distribution, the
 * partition's write limit counted in WCU by item size (1 WCU per KB, 1,000 WCU/s; a throttled write is
 * retried by the SDK, then fails), client timeouts after which the write may still land, and the midnight
 * rollover. Virtual time and seeded randomness: a run of 1,000 containers takes seconds.
 *
 * The container logic follows lambdas/relay/budget-admission.ts: reserve from the slice in memory; else
 * one renewal asking for the call (a cached reading first; a failed condition re-reads); exhausted with
 * settled spend leaving no room refuses at once (`budget_exceeded`); exhausted with room only held
 * elsewhere polls every 250 ms for up to 3 s, then answers the retryable 429; a store failure or timeout
 * under the cap answers the retryable 429. Nothing is ever admitted without a reservation.
 */
import { LeaseHolderState, type PendingReport } from '../core/leases/lease-holder';
import {
  applyDelta,
  crossesDay,
  planLease,
  planRelease,
  type CapsNanos,
  type CounterDelta,
  type CounterReading,
  type LeaseGrant,
} from '../core/leases/lease-state';

export interface FleetSimOptions {
  readonly containers: number;
  readonly seed: number;
  /** Virtual seconds simulated; the run starts 30 s before midnight UTC. @default 60 */
  readonly seconds?: number;
  /**
   * The relay's `fleetSize`: after each call a container returns its idle slice near the cap
   * (LeaseHolderState.shouldReturnWhenIdle), as LeaseAdmission.invocationEnded() does; 0 = never. @default 100
   */
  readonly idleFleetSize?: number;
}

export interface FleetSimResult {
  readonly containers: number;
  readonly admitted: number;
  readonly refusedFinal: number;
  readonly refusedRetryable: number;
  /** Spend past the cap, in calls, summed over the two days of the run. */
  readonly pastCapCalls: number;
  readonly admittedWithoutReservation: number;
  readonly peakWritesPerSecond: number;
  readonly peakWcuPerSecond: number;
  readonly meanWritesPerSecond: number;
  readonly opsPerAdmitted: number;
  readonly p99WaitMs: number;
  readonly maxItemBytes: number;
  readonly lateLandings: number;
  readonly throttled: number;
  /** Room left in a day when its first `budget_exceeded` was answered, in calls (< 1: none fitted). */
  readonly roomAtFirstFinalRefusalCalls: number;
}

const CALL_NANOS = 6_000_000; // $0.006: a text call with an output bound, worst case = its bill at most
const STORE_TIMEOUT_MS = 1_000;
const MAX_WAIT_MS = 3_000;
const POLL_MS = 250;
const WCU_PER_SECOND = 1_000;
const CAPS_TTL_MS = 500;

/** mulberry32: small, fast, seeded. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A min-heap of timed events. */
class Events {
  private heap: { at: number; seq: number; run: () => void }[] = [];
  private seq = 0;
  push(at: number, run: () => void): void {
    const h = this.heap;
    h.push({ at, seq: this.seq++, run });
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (less(h[i]!, h[p]!)) {
        [h[i], h[p]] = [h[p]!, h[i]!];
        i = p;
      } else break;
    }
  }
  pop(): { at: number; run: () => void } | undefined {
    const h = this.heap;
    if (h.length === 0) return undefined;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && less(h[l]!, h[m]!)) m = l;
        if (r < h.length && less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}
function less(a: { at: number; seq: number }, b: { at: number; seq: number }): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/** Item size as DynamoDB bills it: attribute names and number values (≈ 1 byte per 2 digits + 1). */
function itemBytes(r: CounterReading): number {
  let n = 40; // keys
  for (const [k, v] of Object.entries(r)) n += k.length + Math.ceil(String(Math.abs(v)).length / 2) + 1;
  return n;
}

interface Container {
  holder: LeaseHolderState;
  reading?: CounterReading;
  capsAt: number;
  frozen: boolean;
  busy: boolean;
  renewal?: Promise<LeaseGrant | 'failed'>;
  timerAt: number | null;
  failedUntil: number;
}

/**
 * Runs one row: `containers` relay containers under a daily cap of $0.04 per container (so every row
 * reaches its cap within the first day's 30 s and again after midnight).
 */
export async function simulateFleet(opts: FleetSimOptions): Promise<FleetSimResult> {
  const rand = rng(opts.seed);
  const events = new Events();
  const start = Date.UTC(2026, 10, 25, 23, 59, 30);
  const end = start + (opts.seconds ?? 60) * 1000;
  let now = start;
  const caps: CapsNanos = { day: opts.containers * 40_000_000, month: null };
  let counter: CounterReading = {};
  const spent = new Map<string, number>();
  let admitted = 0;
  let unreserved = 0;
  let refusedFinal = 0;
  let refusedRetryable = 0;
  let reads = 0;
  let writes = 0;
  let lateLandings = 0;
  let throttled = 0;
  let maxItemBytes = 0;
  const waits: number[] = [];
  const writesPerSecond = new Map<number, number>();
  const wcuPerSecond = new Map<number, number>();
  const roomAtFirstFinal = new Map<string, number>();
  let wcuTokens = WCU_PER_SECOND;
  let wcuAt = start;

  /** Latency: mostly a few ms, a long tail; a rare write far slower than the client's timeout. */
  const latency = (base: number): number => {
    const u = rand();
    if (u < 0.0005) return 1_200 + rand() * 2_000; // lands after the client gave up
    if (u < 0.01) return base * (4 + rand() * 20);
    return base * (0.6 + rand() * 0.9);
  };

  const sleep = (ms: number) => new Promise<void>((resolve) => events.push(now + ms, resolve));

  const read = async (): Promise<CounterReading> => {
    reads++;
    await sleep(latency(4));
    return counter;
  };

  /** One write: the partition's WCU bucket, the latency, the condition, and a timeout that may leave it in flight. */
  const write = (delta: CounterDelta): Promise<CounterReading | null | 'timeout' | 'throttled'> => {
    writes++;
    const sec = Math.floor((now - start) / 1000);
    writesPerSecond.set(sec, (writesPerSecond.get(sec) ?? 0) + 1);
    const wcu = Math.max(1, Math.ceil(itemBytes(counter) / 1024));
    wcuTokens = Math.min(WCU_PER_SECOND, wcuTokens + ((now - wcuAt) / 1000) * WCU_PER_SECOND);
    wcuAt = now;
    if (wcuTokens < wcu) {
      // ProvisionedThroughputExceeded; the SDK's retries (≈ 3 × 50–200 ms) usually find the same wall.
      throttled++;
      return sleep(300).then(() => 'throttled' as const);
    }
    wcuTokens -= wcu;
    wcuPerSecond.set(sec, (wcuPerSecond.get(sec) ?? 0) + wcu);
    const lands = latency(7);
    return new Promise((resolve) => {
      let answered = false;
      events.push(now + lands, () => {
        const next = applyDelta(counter, delta);
        if (next !== null) {
          counter = next;
          maxItemBytes = Math.max(maxItemBytes, itemBytes(counter));
        }
        if (answered) {
          lateLandings++;
          return;
        }
        answered = true;
        resolve(next);
      });
      events.push(now + STORE_TIMEOUT_MS, () => {
        if (answered) return;
        answered = true;
        resolve('timeout');
      });
    });
  };

  const containers: Container[] = [];
  let nextId = 0;
  const newContainer = (): Container => ({
    holder: new LeaseHolderState(`relay-${nextId++}`),
    capsAt: 0,
    frozen: false,
    busy: false,
    timerAt: null,
    failedUntil: 0,
  });

  /** One lease operation of a container (shared by nothing: one call per container). */
  const renew = async (c: Container, need: number): Promise<LeaseGrant | 'failed'> => {
    const h = c.holder;
    const report: PendingReport = h.report(need, now);
    let reading = c.reading;
    if (crossesDay(report.request.held, now)) {
      // Across midnight: the old day's slice returns first, then the grant (core/leases crossesDay).
      const out = await write(planRelease(report.request, now));
      if (out === 'timeout' || out === 'throttled') {
        h.writeUncertain(report, out === 'timeout' ? { held: null } : null);
        c.reading = undefined;
        c.failedUntil = now + 1_000;
        return 'failed';
      }
      h.releasedBeforeRollover(report);
      reading = out ?? undefined;
    }
    for (let attempt = 0; attempt < 6; attempt++) {
      reading ??= await read();
      const { delta, grant } = planLease(reading, report.request, caps, now);
      const empty = Object.keys(delta.add).length === 0;
      const out = empty ? applyDelta(counter, delta) : await write(delta);
      if (out === 'timeout' || out === 'throttled') {
        h.writeUncertain(report, out === 'timeout' ? { held: grant.held } : null);
        c.reading = undefined;
        c.failedUntil = now + 1_000;
        return 'failed';
      }
      if (out !== null) {
        c.reading = out;
        h.applyGrant(report, grant, now);
        armTimer(c);
        return grant;
      }
      reading = undefined;
    }
    h.renewalFailed();
    c.reading = undefined;
    return 'failed';
  };

  const release = async (c: Container): Promise<void> => {
    const h = c.holder;
    if (h.capped !== true || h.renewing || h.reservations > 0) return;
    const report = h.report(0, now);
    const out = await write(planRelease(report.request, now));
    if (out === 'timeout' || out === 'throttled')
      h.writeUncertain(report, out === 'timeout' ? { held: null } : null);
    else h.applyRelease(report);
    c.reading = undefined;
  };

  function armTimer(c: Container): void {
    const at = c.holder.nextLeaseActionAtMs(now);
    if (at === null || c.timerAt === at) return;
    c.timerAt = at;
    events.push(at, () => {
      if (c.timerAt !== at) return;
      c.timerAt = null;
      if (c.frozen) return; // a frozen container runs no timer; it fires on thaw
      if (c.holder.renewing) return;
      if (c.holder.reservations > 0) void renew(c, 0);
      else void release(c);
    });
  }

  const call = async (c: Container): Promise<void> => {
    const h = c.holder;
    const t0 = now;
    let admittedNow = h.tryReserve(CALL_NANOS, now);
    let final = false;
    while (!admittedNow) {
      if (h.capped === true && h.settledLeavesNoRoom(CALL_NANOS, now, CAPS_TTL_MS)) {
        final = true;
        break;
      }
      if (now < c.failedUntil || now - t0 >= MAX_WAIT_MS) break;
      const g = await renew(c, CALL_NANOS);
      if (g === 'failed') break;
      if (g.exhausted) {
        if (g.settledLeavesNoRoom) {
          final = true;
          break;
        }
        await sleep(POLL_MS);
        continue;
      }
      admittedNow = h.tryReserve(CALL_NANOS, now);
    }
    waits.push(now - t0);
    if (!admittedNow) {
      if (final) {
        refusedFinal++;
        const day = new Date(now).toISOString().slice(0, 10);
        if (!roomAtFirstFinal.has(day))
          roomAtFirstFinal.set(day, (caps.day as number) - (spent.get(day) ?? 0));
      } else refusedRetryable++;
      return;
    }
    admitted++;
    if (h.capped !== true) unreserved++;
    const day = (h.held ?? { day: new Date(now).toISOString().slice(0, 10) }).day;
    armTimer(c);
    // The call runs 0.3–2 s and costs up to its worst case.
    await sleep(300 + rand() * 1_700);
    const actual = Math.round(CALL_NANOS * (0.5 + rand() * 0.5));
    const dayNow = h.held?.day ?? day;
    spent.set(dayNow, (spent.get(dayNow) ?? 0) + actual);
    h.settle(CALL_NANOS, actual, now);
    armTimer(c);
  };

  /** A container's life: calls back to back with short gaps; sometimes frozen while idle; sometimes recycled. */
  const live = async (i: number): Promise<void> => {
    for (;;) {
      if (now >= end) return;
      const c = containers[i] as Container;
      await sleep(20 + rand() * 400);
      if (now >= end) return;
      if (rand() < 0.05) {
        // Frozen while idle (no invocation): no timer runs; thawed by the next invocation.
        c.frozen = true;
        await sleep(2_000 + rand() * 40_000);
        c.frozen = false;
        if (c.timerAt !== null && c.timerAt <= now) {
          c.timerAt = null;
        }
        armTimer(c);
      }
      if (rand() < 0.01) {
        // Recycled: the container is gone with its slice (charged as spent until the day ends).
        containers[i] = newContainer();
        continue;
      }
      const c2 = containers[i] as Container;
      await call(c2);
      // The invocation's end, as LeaseAdmission.invocationEnded(): near the cap the idle slice goes back.
      if (opts.idleFleetSize !== 0 && c2.holder.shouldReturnWhenIdle(opts.idleFleetSize ?? 100))
        await release(c2);
    }
  };

  for (let i = 0; i < opts.containers; i++) {
    containers.push(newContainer());
    events.push(start + rand() * 1_000, () => void live(i));
  }
  for (;;) {
    const e = events.pop();
    if (e === undefined || e.at > end + 10_000) break;
    now = Math.max(now, e.at);
    e.run();
    // Let every continuation of this instant run before the clock moves on.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  let past = 0;
  for (const [, s] of spent) past += Math.max(0, s - (caps.day as number));
  waits.sort((a, b) => a - b);
  const secs = [...writesPerSecond.values()];
  const rooms = [...roomAtFirstFinal.values()];
  return {
    containers: opts.containers,
    admitted,
    refusedFinal,
    refusedRetryable,
    pastCapCalls: past / CALL_NANOS,
    admittedWithoutReservation: unreserved,
    peakWritesPerSecond: Math.max(0, ...secs),
    peakWcuPerSecond: Math.max(0, ...wcuPerSecond.values()),
    meanWritesPerSecond: writes / ((end - start) / 1000),
    opsPerAdmitted: admitted === 0 ? 0 : (reads + writes) / admitted,
    p99WaitMs: waits.length === 0 ? 0 : (waits[Math.floor(waits.length * 0.99)] as number),
    maxItemBytes,
    lateLandings,
    throttled,
    roomAtFirstFinalRefusalCalls: rooms.length === 0 ? Number.NaN : Math.max(...rooms) / CALL_NANOS,
  };
}

/**
 * In-memory stand-ins for the stores the proxy reads and the sink it writes, for tests and the
 * benchmark (so that a measurement is of the proxy, not of dynalite). Same interfaces as the DynamoDB
 * and Kinesis adapters.
 */
import type { EventEnvelope } from '../../core/events/telemetry-event';
import type { EventSink } from '../../lambdas/shared/event-sink';
import type { ApiKeyRecord, ApiKeyStore, RevokeOutcome } from '../../lambdas/shared/stores/api-key-store';
import type { LoopRunKey, LoopRunStore } from '../../lambdas/shared/stores/loop-run-store';
import {
  isExpired,
  mayReplace,
  type FlagRecord,
  type FlagStore,
} from '../../lambdas/shared/stores/flag-store';

export class MemoryFlagStore implements FlagStore {
  readonly items = new Map<string, FlagRecord>();
  /** Set to make every call reject (a store outage). */
  failWith: Error | undefined;
  /** Counts read round trips (`get` and `getMany` calls; cache tests). */
  reads = 0;

  async put(flag: FlagRecord, nowMs: number): Promise<boolean> {
    this.check();
    if (!mayReplace(this.items.get(flag.flagKey), flag, nowMs)) return false;
    this.items.set(flag.flagKey, { ...flag });
    return true;
  }

  async get(flagKey: string, nowMs: number): Promise<FlagRecord | undefined> {
    this.reads++;
    this.check();
    const item = this.items.get(flagKey);
    return item === undefined || isExpired(item, nowMs) ? undefined : item;
  }

  async getMany(flagKeys: readonly string[], nowMs: number): Promise<FlagRecord[]> {
    this.reads++;
    this.check();
    const found: FlagRecord[] = [];
    for (const k of flagKeys) {
      const item = this.items.get(k);
      if (item !== undefined && !isExpired(item, nowMs)) found.push(item);
    }
    return found;
  }

  async delete(flagKey: string): Promise<void> {
    this.check();
    this.items.delete(flagKey);
  }

  async listByOrg(orgId: string, nowMs: number): Promise<FlagRecord[]> {
    this.check();
    return [...this.items.values()].filter((f) => f.orgId === orgId && !isExpired(f, nowMs));
  }

  async listByKey(orgId: string, flagKey: string, nowMs: number): Promise<FlagRecord[]> {
    this.check();
    return [...this.items.values()].filter(
      (f) => f.orgId === orgId && f.flagKey.startsWith(flagKey) && !isExpired(f, nowMs),
    );
  }

  private check(): void {
    if (this.failWith !== undefined) throw this.failWith;
  }
}

export class MemoryApiKeyStore implements ApiKeyStore {
  readonly records = new Map<string, ApiKeyRecord>();
  failWith: Error | undefined;
  reads = 0;

  async create(record: ApiKeyRecord): Promise<void> {
    this.check();
    if (this.records.has(record.publicId)) throw new Error('key exists');
    this.records.set(record.publicId, { ...record });
  }

  async get(publicId: string): Promise<ApiKeyRecord | undefined> {
    this.reads++;
    this.check();
    return this.records.get(publicId);
  }

  async listByOrg(orgId: string): Promise<ApiKeyRecord[]> {
    this.check();
    return [...this.records.values()].filter((r) => r.orgId === orgId);
  }

  async revoke(orgId: string, publicId: string, at: string): Promise<RevokeOutcome> {
    this.check();
    const r = this.records.get(publicId);
    if (r === undefined || r.orgId !== orgId) return 'not_found';
    if (r.revokedAt !== null) return 'already_revoked';
    r.revokedAt = at;
    return 'revoked';
  }

  private check(): void {
    if (this.failWith !== undefined) throw this.failWith;
  }
}

/** Keeps every envelope put, in order. */
export class MemoryEventSink implements EventSink {
  readonly envelopes: EventEnvelope[] = [];
  failWith: Error | undefined;

  async put(envelopes: EventEnvelope[]): Promise<void> {
    if (this.failWith !== undefined) throw this.failWith;
    this.envelopes.push(...envelopes);
  }

  /** Every event of every envelope. */
  events(): EventEnvelope['events'] {
    return this.envelopes.flatMap((e) => e.events);
  }

  clear(): void {
    this.envelopes.length = 0;
  }
}

/** The shared loop runs in memory (tests of several relay containers in one process). */
export class MemoryLoopRunStore implements LoopRunStore {
  readonly runs = new Map<string, { fp: number; count: number; lastTs: number }>();
  writes = 0;

  add(key: LoopRunKey, calls: number, nowMs: number, idleMs: number): Promise<number> {
    this.writes++;
    const id = `${key.orgId}\u0000${key.keyId}\u0000${key.run}`;
    const run = this.runs.get(id);
    const goesOn = run !== undefined && run.fp === key.fingerprint && run.lastTs >= nowMs - idleMs;
    const count = goesOn ? run.count + calls : calls;
    this.runs.set(id, { fp: key.fingerprint, count, lastTs: nowMs });
    return Promise.resolve(count);
  }

  reset(key: Omit<LoopRunKey, 'fingerprint'>, atLeast: number): Promise<void> {
    const run = this.runs.get(`${key.orgId}\u0000${key.keyId}\u0000${key.run}`);
    if (run !== undefined && run.count >= atLeast) run.count = 0;
    return Promise.resolve();
  }

  resetAll(orgId: string, keyId: string | null): Promise<void> {
    const prefix = keyId === null ? `${orgId}\u0000` : `${orgId}\u0000${keyId}\u0000`;
    for (const [id, run] of this.runs) if (id.startsWith(prefix)) run.count = 0;
    return Promise.resolve();
  }
}

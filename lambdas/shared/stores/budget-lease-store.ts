import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { BudgetScope } from '../../../core/admission/budget-scopes';
import {
  applyDelta,
  type CounterDelta,
  type CounterReading,
  type HeldSlice,
} from '../../../core/leases/lease-state';
import { itemKeys } from '../item-keys';
import { isConditionFailed, type DynamoTable } from './dynamo';

/**
 * The budget counter of a scope (core/leases): one small item per organization in the Data table, changed
 * only by `UpdateItem` with `ADD` and a condition on the cap (`committed ≤ cap − amount`), never replaced
 * whole. Concurrent writers that fit all succeed; only a write the cap cannot hold fails.
 * No transactions (design decision 5): each write is one item.
 */
export interface BudgetLeaseStore {
  /** The counter, read consistently ({} before the scope's first lease). */
  read(scope: BudgetScope): Promise<CounterReading>;
  /**
   * Applies the delta atomically if every `atMost` condition holds.
   * @returns the counter after the write, or null when a condition failed (nothing changed)
   */
  apply(scope: BudgetScope, delta: CounterDelta): Promise<CounterReading | null>;
  /**
   * Housekeeping (core/leases planFold): adds `add` and removes the `remove` attributes if each still has
   * the value read. @returns false when the counter changed meanwhile (try again later)
   */
  fold(
    scope: BudgetScope,
    fold: { add: Record<string, number>; remove: Record<string, number> },
  ): Promise<boolean>;
}

/** An SDK holder as the lease routes keep it: the key it belongs to and what the counter holds for it. */
export interface LeaseHolderRecord {
  readonly holderId: string;
  readonly keyId: string;
  readonly held: HeldSlice | null;
  /** In-flight reservations it last reported (bounds its next report). */
  readonly reservedNanos: number;
  /**
   * A counter write on its way when this record was written (journaled before it): if no later record
   * replaced it, the write may or may not have landed (see LeaseHolderState.writeUncertain).
   */
  readonly pending: { readonly held: HeldSlice | null; readonly consumedNanos: number } | null;
  /** Incremented by every write; writes are conditional on it (two reports of one holder cannot interleave). */
  readonly seq: number;
  /** TTL attribute (epoch seconds): the record outlives its slice by a day. */
  readonly expiresAt: number;
}

/** SDK lease holders: binding to a key, and the bound on holders per key and per organization. */
/** The window new lease holders are counted in. */
export interface HolderWindow {
  readonly id: string;
  readonly endMs: number;
}

export interface LeaseHolderRegistry {
  get(orgId: string, holderId: string): Promise<LeaseHolderRecord | undefined>;
  /** Writes the record if its stored `seq` is still `expectedSeq` (undefined: must not exist). */
  put(orgId: string, record: LeaseHolderRecord, expectedSeq: number | undefined): Promise<boolean>;
  /**
   * Counts a new holder of `keyId` in `window` (its id, e.g. the UTC hour `2026-11-26T05`, and its end).
   * @returns false when the key already has `maxPerKey` holders in that window, or the organization `maxPerOrg`
   */
  register(
    orgId: string,
    keyId: string,
    window: HolderWindow,
    maxPerKey: number,
    maxPerOrg: number,
  ): Promise<boolean>;
}

const NUMBER_ATTR = /^[cslf][DM]#|^[bnrq]#/;

function readingOf(item: Record<string, unknown> | undefined): CounterReading {
  const out: Record<string, number> = Object.create(null) as Record<string, number>;
  if (item === undefined) return out;
  for (const [k, v] of Object.entries(item)) {
    if (NUMBER_ATTR.test(k) && typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  }
  return out;
}

/** Organizations remembered as carried over, per container; past this many the memory starts again. */
const MAX_CARRIED_ORGS = 10_000;

export class DynamoBudgetLeaseStore implements BudgetLeaseStore, LeaseHolderRegistry {
  /** Organizations whose counter is known to be in its own partition (or to have had nothing to carry). */
  private readonly carried = new Set<string>();

  constructor(private readonly table: DynamoTable) {}

  async read(scope: BudgetScope): Promise<CounterReading> {
    const item = await this.getItem(itemKeys.budgetCounter(scope.orgId));
    if (item !== undefined || this.carried.has(scope.orgId)) {
      this.remember(scope.orgId);
      return readingOf(item);
    }
    return readingOf(await this.carryOver(scope.orgId));
  }

  async apply(scope: BudgetScope, delta: CounterDelta): Promise<CounterReading | null> {
    await this.ensureCarried(scope.orgId);
    const names: Record<string, string> = {};
    const values: Record<string, number> = {};
    const adds: string[] = [];
    const conds: string[] = [];
    let i = 0;
    const nameOf = new Map<string, string>();
    const alias = (attr: string): string => {
      let a = nameOf.get(attr);
      if (a === undefined) {
        a = `#a${i++}`;
        nameOf.set(attr, a);
        names[a] = attr;
      }
      return a;
    };
    let v = 0;
    for (const [attr, n] of Object.entries(delta.add)) {
      if (n === 0) continue;
      const val = `:v${v++}`;
      values[val] = n;
      adds.push(`${alias(attr)} ${val}`);
    }
    for (const [attr, limit] of Object.entries(delta.atMost)) {
      const val = `:v${v++}`;
      values[val] = limit;
      const a = alias(attr);
      // An absent attribute counts as 0: it passes only when the limit admits 0.
      conds.push(limit >= 0 ? `(attribute_not_exists(${a}) OR ${a} <= ${val})` : `${a} <= ${val}`);
    }
    if (adds.length === 0) return conds.length === 0 ? this.read(scope) : this.checkOnly(scope, delta);
    try {
      const out = await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: itemKeys.budgetCounter(scope.orgId),
          UpdateExpression: `ADD ${adds.join(', ')}`,
          ...(conds.length > 0 ? { ConditionExpression: conds.join(' AND ') } : {}),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return readingOf(out.Attributes);
    } catch (err) {
      if (isConditionFailed(err)) return null;
      throw err;
    }
  }

  private async checkOnly(scope: BudgetScope, delta: CounterDelta): Promise<CounterReading | null> {
    const r = await this.read(scope);
    return applyDelta(r, delta);
  }

  async fold(
    scope: BudgetScope,
    fold: { add: Record<string, number>; remove: Record<string, number> },
  ): Promise<boolean> {
    await this.ensureCarried(scope.orgId);
    const names: Record<string, string> = {};
    const values: Record<string, number> = {};
    const adds: string[] = [];
    const removes: string[] = [];
    const conds: string[] = [];
    let i = 0;
    for (const [attr, n] of Object.entries(fold.add)) {
      names[`#a${i}`] = attr;
      values[`:a${i}`] = n;
      adds.push(`#a${i} :a${i}`);
      i++;
    }
    for (const [attr, was] of Object.entries(fold.remove)) {
      names[`#r${i}`] = attr;
      values[`:r${i}`] = was;
      removes.push(`#r${i}`);
      conds.push(`#r${i} = :r${i}`);
      i++;
    }
    try {
      await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: itemKeys.budgetCounter(scope.orgId),
          UpdateExpression: [adds.length > 0 ? `ADD ${adds.join(', ')}` : '', `REMOVE ${removes.join(', ')}`]
            .filter(Boolean)
            .join(' '),
          ConditionExpression: conds.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return false;
      throw err;
    }
  }

  /**
   * The counter moved to a partition of its own (issue 21). A counter that starts empty would forget the
   * day's and month's committed spend (slices out and settled spend the pipeline has not recorded yet),
   * and every slice granted before, returned to the new item, would drive `committed` below zero: the cap
   * could be passed by up to twice what was out. So before its first write for an organization, a
   * container makes sure the new item exists, and if it does not, copies the old item's figures into it
   * (an `UpdateItem` conditional on the item not existing: concurrent containers copy once; the relay
   * needs no `PutItem`). Costs one consistent read per container and organization (none after a `read`).
   */
  private async ensureCarried(orgId: string): Promise<void> {
    if (this.carried.has(orgId)) return;
    if ((await this.getItem(itemKeys.budgetCounter(orgId))) !== undefined) this.remember(orgId);
    else await this.carryOver(orgId);
  }

  /** Copies the old counter's figures into the new item if that is still absent; returns the new item. */
  private async carryOver(orgId: string): Promise<Record<string, unknown> | undefined> {
    const figures = readingOf(await this.getItem(itemKeys.legacyBudgetCounter(orgId)));
    const attrs = Object.keys(figures);
    if (attrs.length === 0) {
      this.remember(orgId);
      return undefined;
    }
    try {
      const out = await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: itemKeys.budgetCounter(orgId),
          UpdateExpression: `SET ${attrs.map((_, i) => `#a${i} = :v${i}`).join(', ')}`,
          ConditionExpression: 'attribute_not_exists(pk)',
          ExpressionAttributeNames: Object.fromEntries(attrs.map((a, i) => [`#a${i}`, a])),
          ExpressionAttributeValues: Object.fromEntries(attrs.map((a, i) => [`:v${i}`, figures[a]])),
          ReturnValues: 'ALL_NEW',
        }),
      );
      this.remember(orgId);
      return out.Attributes;
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      // Another container carried it over (or wrote) first: the new item is the truth.
      this.remember(orgId);
      return this.getItem(itemKeys.budgetCounter(orgId));
    }
  }

  private remember(orgId: string): void {
    if (this.carried.size >= MAX_CARRIED_ORGS) this.carried.clear();
    this.carried.add(orgId);
  }

  private async getItem(key: { pk: string; sk: string }): Promise<Record<string, unknown> | undefined> {
    const out = await this.table.doc.send(
      new GetCommand({ TableName: this.table.tableName, Key: key, ConsistentRead: true }),
    );
    return out.Item;
  }

  async get(orgId: string, holderId: string): Promise<LeaseHolderRecord | undefined> {
    const out = await this.table.doc.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: itemKeys.leaseHolder(orgId, holderId),
        ConsistentRead: true,
      }),
    );
    return out.Item === undefined ? undefined : holderRecordOf(out.Item);
  }

  async put(orgId: string, record: LeaseHolderRecord, expectedSeq: number | undefined): Promise<boolean> {
    try {
      await this.table.doc.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: {
            ...itemKeys.leaseHolder(orgId, record.holderId),
            holderId: record.holderId,
            keyId: record.keyId,
            held: record.held,
            reservedNanos: record.reservedNanos,
            pending: record.pending,
            seq: record.seq,
            expiresAt: record.expiresAt,
          },
          ...(expectedSeq === undefined
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : {
                ConditionExpression: '#s = :s',
                ExpressionAttributeNames: { '#s': 'seq' },
                ExpressionAttributeValues: { ':s': expectedSeq },
              }),
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return false;
      throw err;
    }
  }

  async register(
    orgId: string,
    keyId: string,
    window: HolderWindow,
    maxPerKey: number,
    maxPerOrg: number,
  ): Promise<boolean> {
    try {
      await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: itemKeys.leaseHolderCount(orgId, window.id),
          UpdateExpression: 'ADD #k :one, #t :one SET expiresAt = if_not_exists(expiresAt, :exp)',
          ConditionExpression:
            '(attribute_not_exists(#k) OR #k < :mk) AND (attribute_not_exists(#t) OR #t < :mo)',
          ExpressionAttributeNames: { '#k': `k#${keyId}`, '#t': 'total' },
          ExpressionAttributeValues: {
            ':one': 1,
            ':mk': maxPerKey,
            ':mo': maxPerOrg,
            ':exp': Math.floor(window.endMs / 1000) + 86_400,
          },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return false;
      throw err;
    }
  }
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

function heldOf(v: unknown): HeldSlice | null {
  const h = v as Record<string, unknown> | null | undefined;
  return h !== null && typeof h === 'object' && typeof h.day === 'string' && typeof h.month === 'string'
    ? {
        sliceNanos: num(h.sliceNanos),
        day: h.day,
        month: h.month,
        bucketEndMs: num(h.bucketEndMs),
        reservedNanos: num(h.reservedNanos),
        reservations: num(h.reservations),
      }
    : null;
}

function holderRecordOf(item: Record<string, unknown>): LeaseHolderRecord {
  const p = item.pending as Record<string, unknown> | null | undefined;
  return {
    holderId: String(item.holderId ?? item.sk ?? ''),
    keyId: String(item.keyId ?? ''),
    held: heldOf(item.held),
    reservedNanos: num(item.reservedNanos),
    pending:
      p !== null && typeof p === 'object'
        ? { held: heldOf(p.held), consumedNanos: num(p.consumedNanos) }
        : null,
    seq: num(item.seq),
    expiresAt: num(item.expiresAt),
  };
}

/**
 * The store in memory, with the same conditional arithmetic (tests, the proxy bench). Counts its
 * operations so a caller can show how many store round trips a request cost.
 */
export class MemoryBudgetLeaseStore implements BudgetLeaseStore, LeaseHolderRegistry {
  private readonly items = new Map<string, CounterReading>();
  private readonly holders = new Map<string, LeaseHolderRecord>();
  private readonly counts = new Map<string, Map<string, number>>();
  loads = 0;
  saves = 0;

  read(scope: BudgetScope): Promise<CounterReading> {
    this.loads++;
    return Promise.resolve(this.items.get(scope.orgId) ?? {});
  }

  apply(scope: BudgetScope, delta: CounterDelta): Promise<CounterReading | null> {
    this.saves++;
    const next = applyDelta(this.items.get(scope.orgId) ?? {}, delta);
    if (next !== null) this.items.set(scope.orgId, next);
    return Promise.resolve(next);
  }

  fold(
    scope: BudgetScope,
    fold: { add: Record<string, number>; remove: Record<string, number> },
  ): Promise<boolean> {
    this.saves++;
    const cur = { ...(this.items.get(scope.orgId) ?? {}) };
    for (const [k, was] of Object.entries(fold.remove)) if (cur[k] !== was) return Promise.resolve(false);
    for (const k of Object.keys(fold.remove)) delete cur[k];
    for (const [k, n] of Object.entries(fold.add)) cur[k] = (cur[k] ?? 0) + n;
    this.items.set(scope.orgId, cur);
    return Promise.resolve(true);
  }

  get(orgId: string, holderId: string): Promise<LeaseHolderRecord | undefined> {
    return Promise.resolve(this.holders.get(`${orgId}\u0000${holderId}`));
  }

  put(orgId: string, record: LeaseHolderRecord, expectedSeq: number | undefined): Promise<boolean> {
    const k = `${orgId}\u0000${record.holderId}`;
    if (this.holders.get(k)?.seq !== expectedSeq) return Promise.resolve(false);
    this.holders.set(k, record);
    return Promise.resolve(true);
  }

  register(
    orgId: string,
    keyId: string,
    window: HolderWindow,
    maxPerKey: number,
    maxPerOrg: number,
  ): Promise<boolean> {
    const k = `${orgId}\u0000${window.id}`;
    const m = this.counts.get(k) ?? new Map<string, number>();
    this.counts.set(k, m);
    const perKey = m.get(keyId) ?? 0;
    const total = [...m.values()].reduce((a, b) => a + b, 0);
    if (perKey >= maxPerKey || total >= maxPerOrg) return Promise.resolve(false);
    m.set(keyId, perKey + 1);
    return Promise.resolve(true);
  }
}

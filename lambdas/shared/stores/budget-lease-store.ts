import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { BudgetScope } from '../../../core/admission/budget-scopes';
import type { HolderLease, LeaseState } from '../../../core/leases/lease-state';
import { itemKeys } from '../item-keys';
import { isConditionFailed, type DynamoTable } from './dynamo';

/**
 * The budget lease item of a scope (core/leases): one item per organization in the Data table, replaced
 * whole with a condition on its `version`, so two holders can never both spend the same remainder.
 * No transactions (design decision 5): the item is the unit of consistency.
 */
export interface BudgetLeaseStore {
  /** The item, read consistently, or undefined before the scope's first lease. */
  load(scope: BudgetScope): Promise<LeaseState | undefined>;
  /**
   * Writes `next` if the stored version is still `expectedVersion` (undefined: the item must not exist).
   * @returns false when another holder wrote first (re-read and retry)
   */
  save(scope: BudgetScope, next: LeaseState, expectedVersion: number | undefined): Promise<boolean>;
}

function keyOf(scope: BudgetScope) {
  return itemKeys.budgetLease(scope.orgId);
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/** Reads the stored shape defensively: a malformed holder entry is dropped (its slice returns). */
function fromItem(item: Record<string, unknown>): LeaseState {
  const holders: Record<string, HolderLease> = {};
  const raw = item.holders;
  if (typeof raw === 'object' && raw !== null) {
    for (const [id, h] of Object.entries(raw as Record<string, Record<string, unknown>>)) {
      if (typeof h !== 'object' || h === null || typeof h.day !== 'string' || typeof h.month !== 'string')
        continue;
      holders[id] = {
        sliceNanos: num(h.sliceNanos),
        expiresAtMs: num(h.expiresAtMs),
        day: h.day,
        month: h.month,
        reservedNanos: num(h.reservedNanos),
        reservations: num(h.reservations),
      };
    }
  }
  return {
    version: num(item.version),
    day: String(item.day ?? ''),
    month: String(item.month ?? ''),
    settled: { day: num(item.settledDayNanos), month: num(item.settledMonthNanos) },
    recorded: { day: num(item.recordedDayNanos), month: num(item.recordedMonthNanos) },
    holders,
  };
}

export class DynamoBudgetLeaseStore implements BudgetLeaseStore {
  constructor(private readonly table: DynamoTable) {}

  async load(scope: BudgetScope): Promise<LeaseState | undefined> {
    const out = await this.table.doc.send(
      new GetCommand({ TableName: this.table.tableName, Key: keyOf(scope), ConsistentRead: true }),
    );
    return out.Item ? fromItem(out.Item) : undefined;
  }

  async save(scope: BudgetScope, next: LeaseState, expectedVersion: number | undefined): Promise<boolean> {
    try {
      await this.table.doc.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: {
            ...keyOf(scope),
            version: next.version,
            day: next.day,
            month: next.month,
            settledDayNanos: next.settled.day,
            settledMonthNanos: next.settled.month,
            recordedDayNanos: next.recorded.day,
            recordedMonthNanos: next.recorded.month,
            holders: next.holders,
          },
          ...(expectedVersion === undefined
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : {
                ConditionExpression: '#v = :v',
                ExpressionAttributeNames: { '#v': 'version' },
                ExpressionAttributeValues: { ':v': expectedVersion },
              }),
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return false;
      throw err;
    }
  }
}

/**
 * The store in memory, with the same version condition (tests, the benchmark). Counts its operations so a
 * caller can show how many store round trips a request cost.
 */
export class MemoryBudgetLeaseStore implements BudgetLeaseStore {
  private readonly items = new Map<string, LeaseState>();
  loads = 0;
  saves = 0;

  load(scope: BudgetScope): Promise<LeaseState | undefined> {
    this.loads++;
    return Promise.resolve(this.items.get(scope.orgId));
  }

  save(scope: BudgetScope, next: LeaseState, expectedVersion: number | undefined): Promise<boolean> {
    this.saves++;
    const current = this.items.get(scope.orgId);
    if (current?.version !== expectedVersion) return Promise.resolve(false);
    this.items.set(scope.orgId, next);
    return Promise.resolve(true);
  }
}

/**
 * The budget counter's own partition (issue 21) on dynalite: a counter written before the move, in the
 * organization's partition, is carried over once, so the day's committed spend and the slices out at
 * deploy still bound the cap.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import type { HeldSlice } from '../../../core/leases/lease-state';
import { localDataTable } from '../../../test/local-data-table';
import { BudgetLeases } from '../budget-leases';
import { itemKeys } from '../item-keys';
import { DynamoAggregateStore } from './aggregate-store';
import { DynamoBudgetLeaseStore } from './budget-lease-store';
import { DynamoOrgConfigStore } from './org-config-store';

const NOW = Date.parse('2026-11-22T10:00:00.000Z');
const DAY = '2026-11-22';
const MONTH = '2026-11';
/** A live 10 s bucket (its slices expire after NOW). */
const BUCKET_END = NOW + 20_000;

const local = localDataTable();

/** A fresh container: its own store (nothing remembered) and lease service. */
function container(): { store: DynamoBudgetLeaseStore; leases: BudgetLeases } {
  const store = new DynamoBudgetLeaseStore(local.table);
  const leases = new BudgetLeases({
    store,
    config: new DynamoOrgConfigStore(local.table),
    aggregates: new DynamoAggregateStore(local.table),
    now: () => NOW,
  });
  return { store, leases };
}

async function cap(orgId: string, dailyLimitUsd: number): Promise<void> {
  const store = new DynamoOrgConfigStore(local.table);
  const read = (await store.get(orgId))?.rev ?? 0;
  await store.put(
    orgId,
    { budget: { dailyLimitUsd, action: 'block' }, policy: {}, updatedAt: new Date(NOW).toISOString() },
    read,
  );
}

/** The counter as the code before the move left it: in the organization's partition. */
async function legacyCounter(orgId: string, figures: Record<string, number>): Promise<void> {
  await local.table.doc.send(
    new PutCommand({
      TableName: local.table.tableName,
      Item: { ...itemKeys.legacyBudgetCounter(orgId), ...figures },
    }),
  );
}

async function item(key: { pk: string; sk: string }): Promise<Record<string, unknown> | undefined> {
  const out = await local.table.doc.send(
    new GetCommand({ TableName: local.table.tableName, Key: key, ConsistentRead: true }),
  );
  return out.Item;
}

/** $0.90 committed today: $0.60 settled and one live $0.30 slice. */
const NINETY_CENTS = {
  [`cD#${DAY}`]: 900_000_000,
  [`cM#${MONTH}`]: 900_000_000,
  [`sD#${DAY}`]: 600_000_000,
  [`sM#${MONTH}`]: 600_000_000,
  [`b#${DAY}#${BUCKET_END}`]: 300_000_000,
  [`n#${DAY}#${BUCKET_END}`]: 1,
};
const HELD: HeldSlice = {
  sliceNanos: 300_000_000,
  day: DAY,
  month: MONTH,
  bucketEndMs: BUCKET_END,
  reservedNanos: 0,
  reservations: 0,
};
const request = (holderId: string, needNanos: number) => ({
  holderId,
  consumedNanos: 0,
  reservedNanos: 0,
  reservations: 0,
  needNanos,
  rateNanosPerSecond: 0,
});

describe('DynamoBudgetLeaseStore: the counter in its own partition', () => {
  it('keeps the counter out of the organization partition (config, rates, profile)', () => {
    expect(itemKeys.budgetCounter('org_a').pk).not.toBe(itemKeys.config('org_a').pk);
    expect(itemKeys.budgetCounter('org_a').pk).toBe('BUDGET#ORG#org_a');
  });

  it('refuses a call the carried-over day cannot hold (a fresh counter would grant it)', async () => {
    const scope = { kind: 'organization' as const, orgId: 'org_carried' };
    await cap('org_carried', 1);
    await legacyCounter('org_carried', NINETY_CENTS);
    const { grant } = await container().leases.take(scope, request('h', 200_000_000));
    // $1 − $0.90 committed before the deploy: $0.10 free, not $1.
    expect(grant).toMatchObject({ exhausted: true, freeNanos: 100_000_000 });
    expect(await item(itemKeys.budgetCounter('org_carried'))).toMatchObject(NINETY_CENTS);

    // Control: the same call without an old counter is granted.
    const control = { kind: 'organization' as const, orgId: 'org_fresh' };
    await cap('org_fresh', 1);
    const fresh = await container().leases.take(control, request('h', 200_000_000));
    expect(fresh.grant.exhausted).toBe(false);
  });

  it('returns a slice granted before the move without driving committed below zero', async () => {
    const scope = { kind: 'organization' as const, orgId: 'org_return' };
    await cap('org_return', 1);
    await legacyCounter('org_return', NINETY_CENTS);
    // The holder of the $0.30 slice reports $0.10 spent: its first write after the deploy, with no read.
    await container().leases.release(scope, 'h', 100_000_000, HELD);
    const after = await item(itemKeys.budgetCounter('org_return'));
    expect(after).toMatchObject({
      [`cD#${DAY}`]: 700_000_000, // 0.90 − 0.30 + 0.10
      [`sD#${DAY}`]: 700_000_000,
      [`b#${DAY}#${BUCKET_END}`]: 0,
      [`n#${DAY}#${BUCKET_END}`]: 0,
    });
  });

  it('carries over once when containers race, and never reads the old item again', async () => {
    const scope = { kind: 'organization' as const, orgId: 'org_race' };
    await legacyCounter('org_race', NINETY_CENTS);
    const add = { add: { [`cD#${DAY}`]: 10 }, atMost: {} };
    const racers = Array.from({ length: 6 }, () => container().store);
    await Promise.all(racers.map((s) => s.apply(scope, add)));
    expect((await item(itemKeys.budgetCounter('org_race')))?.[`cD#${DAY}`]).toBe(900_000_000 + 60);
    // The old item stays as it was; later changes to it (old code still running) are not copied again.
    await legacyCounter('org_race', { [`cD#${DAY}`]: 1 });
    await container().store.apply(scope, add);
    await racers[0]!.apply(scope, add);
    expect((await item(itemKeys.budgetCounter('org_race')))?.[`cD#${DAY}`]).toBe(900_000_000 + 80);
  });

  it('reads exactly the old figures on the first read after the move (any counter)', async () => {
    const attr = fc.oneof(
      fc.constantFrom(`cD#${DAY}`, `cM#${MONTH}`, `sD#${DAY}`, `sM#${MONTH}`, `lD#${DAY}`, `lM#${MONTH}`),
      fc.integer({ min: 0, max: 5 }).map((i) => `b#${DAY}#${BUCKET_END + i * 10_000}`),
      fc.integer({ min: 0, max: 5 }).map((i) => `n#${DAY}#${BUCKET_END + i * 10_000}`),
    );
    const figures = fc.dictionary(attr, fc.integer({ min: -1e12, max: 1e12 }), { maxKeys: 20 });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(figures, async (old) => {
        const orgId = `org_prop${run++}`;
        if (Object.keys(old).length > 0) await legacyCounter(orgId, old);
        const reading = await container().store.read({ kind: 'organization', orgId });
        expect({ ...reading }).toEqual(old);
      }),
      { numRuns: 25 },
    );
  });
});

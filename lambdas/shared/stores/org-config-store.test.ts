/**
 * The organization's settings item on dynalite: each write names the revision it read, so a write
 * that lost a race is refused whole instead of overwriting the change that won.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { localDataTable } from '../../../test/local-data-table';
import { itemKeys } from '../item-keys';
import { DynamoOrgConfigStore, OrgConfigConflictError } from './org-config-store';

const local = localDataTable();
const store = () => new DynamoOrgConfigStore(local.table);

const settings = (dailyLimitUsd: number) => ({
  budget: { dailyLimitUsd, action: 'block' },
  policy: {},
  updatedAt: '2026-11-26T04:00:00.000Z',
});

describe('DynamoOrgConfigStore', () => {
  it('counts revisions from 1 and refuses a write made on a stale read, keeping the winner', async () => {
    expect(await store().get('org_rev')).toBeUndefined();
    await store().put('org_rev', settings(5), 0);
    expect((await store().get('org_rev'))?.rev).toBe(1);

    // Two writers read revision 1; the first wins, the second is refused and changes nothing.
    await store().put('org_rev', settings(7), 1);
    await expect(store().put('org_rev', settings(9), 1)).rejects.toBeInstanceOf(OrgConfigConflictError);
    await expect(store().put('org_rev', settings(9), 0)).rejects.toBeInstanceOf(OrgConfigConflictError);
    expect(await store().get('org_rev')).toMatchObject({ budget: { dailyLimitUsd: 7 }, rev: 2 });
  });

  it('reads an item written before revisions existed as revision 0, and writes over it once', async () => {
    await local.table.doc.send(
      new PutCommand({
        TableName: local.table.tableName,
        Item: { ...itemKeys.config('org_legacy'), ...settings(3) },
      }),
    );
    expect((await store().get('org_legacy'))?.rev).toBe(0);
    await store().put('org_legacy', settings(4), 0);
    await expect(store().put('org_legacy', settings(6), 0)).rejects.toBeInstanceOf(OrgConfigConflictError);
    expect(await store().get('org_legacy')).toMatchObject({ budget: { dailyLimitUsd: 4 }, rev: 1 });
  });
});

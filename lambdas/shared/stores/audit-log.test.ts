/**
 * The audit log on the DynamoDB stand-in: append-only (an entry is never replaced), each entry kept for
 * the retention in force when it was written, expired entries unread, pages newest first, and a cursor
 * that can only resume inside the caller's own partition.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { localDataTable } from '../../../test/local-data-table';
import { itemKeys } from '../item-keys';
import { type AuditChange, DynamoAuditLog, InvalidAuditCursorError } from './audit-log';

const local = localDataTable();

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const DAY = 86_400_000;
const change = (i: number, over: Partial<AuditChange> = {}): AuditChange => ({
  action: 'key.created',
  actor: { kind: 'person', sub: 'u1', email: 'a@acme.io', role: 'admin' },
  target: `key_${i}`,
  before: null,
  after: { name: `k${i}`, nested: { dropped: undefined, kept: 1 } },
  at: new Date(T0 + i * 1000).toISOString(),
  ...over,
});

async function stored(orgId: string, sk: string) {
  const out = await local.table.doc.send(
    new GetCommand({ TableName: local.table.tableName, Key: { pk: itemKeys.auditPk(orgId), sk } }),
  );
  return out.Item;
}

describe('DynamoAuditLog', () => {
  it('keeps each entry for the retention in force when it was written (default 400 days)', async () => {
    const log = new DynamoAuditLog(local.table);
    const first = await log.record('org_ttl', change(0));
    expect((await stored('org_ttl', `${first.at}#${first.id}`))?.expiresAt).toBe(T0 / 1000 + 400 * 86_400);
    await log.setRetentionDays('org_ttl', 90, new Date(T0).toISOString());
    const second = await log.record('org_ttl', change(1));
    expect((await stored('org_ttl', `${second.at}#${second.id}`))?.expiresAt).toBe(
      (T0 + 1000) / 1000 + 90 * 86_400,
    );
    // Shortening the retention does not touch what is written.
    expect((await stored('org_ttl', `${first.at}#${first.id}`))?.expiresAt).toBe(T0 / 1000 + 400 * 86_400);
    // Read as of 91 days later: only the first (400-day) entry is left; TTL deletes lazily, readers skip.
    const later = await log.list('org_ttl', { limit: 10, cursor: null }, T0 + 91 * DAY);
    expect(later.entries.map((e) => e.id)).toEqual([first.id]);
    expect(first.after).toEqual({ name: 'k0', nested: { kept: 1 } });
  });

  it('never replaces an entry: a colliding id is retried under a new one, then refused', async () => {
    let n = 0;
    const ids = ['aaaaaaaaaaaaaaaa', 'aaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb'];
    const log = new DynamoAuditLog(local.table, () => ids[n++] ?? 'aaaaaaaaaaaaaaaa');
    const a = await log.record('org_dup', change(0, { target: 'first' }));
    const b = await log.record('org_dup', change(0, { target: 'second' }));
    expect([a.id, b.id]).toEqual(['aaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb']);
    expect((await stored('org_dup', `${a.at}#${a.id}`))?.target).toBe('first');
    // Only ever the same id: three attempts, then the condition failure surfaces; nothing is overwritten.
    await expect(log.record('org_dup', change(0, { target: 'third' }))).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
    });
    expect((await stored('org_dup', `${a.at}#${a.id}`))?.target).toBe('first');
  });

  it('pages newest first, every entry once, and filters by action', async () => {
    const log = new DynamoAuditLog(local.table);
    for (let i = 0; i < 7; i++) {
      await log.record('org_page', change(i, i % 3 === 0 ? { action: 'budget.updated' } : {}));
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof log.list>> = await log.list('org_page', { limit: 3, cursor }, T0);
      seen.push(...page.entries.map((e) => e.target ?? ''));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual(['key_6', 'key_5', 'key_4', 'key_3', 'key_2', 'key_1', 'key_0']);
    const budget = await log.list('org_page', { limit: 10, cursor: null, action: 'budget.updated' }, T0);
    expect(budget.entries.map((e) => e.target)).toEqual(['key_6', 'key_3', 'key_0']);
  });

  it('property: any cursor either resumes inside the caller’s partition or is refused as not issued', async () => {
    const log = new DynamoAuditLog(local.table);
    await log.record('org_cur', change(0));
    await log.record('org_cur', change(1));
    await log.record('org_other', change(2));
    const issued = (await log.list('org_cur', { limit: 1, cursor: null }, T0)).nextCursor!;
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const cursors = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constant(issued),
      // Well-formed cursors naming other items, other partitions or odd shapes.
      fc
        .oneof(
          fc.record({ sk: fc.string({ maxLength: 40 }) }),
          fc.record({ sk: fc.constantFrom('ORG#org_other#AUDIT', 'PROFILE', '') }),
          fc.record({ sk: fc.integer() }),
          fc.record({
            pk: fc.constant('ORG#org_other#AUDIT'),
            sk: fc.constant(`${change(2).at}#0000000000000000`),
          }),
          fc.constant(null),
        )
        .map(b64),
    );
    await fc.assert(
      fc.asyncProperty(cursors, async (cursor) => {
        try {
          const page = await log.list('org_cur', { limit: 5, cursor }, T0);
          // Whatever it resumed from, it read only this organization's entries.
          for (const e of page.entries) expect(['key_0', 'key_1']).toContain(e.target);
        } catch (err) {
          expect(err).toBeInstanceOf(InvalidAuditCursorError);
        }
      }),
      { numRuns: 150 },
    );
    // A well-formed cursor whose sort key this store never writes is refused, not used.
    for (const sk of ['PROFILE', 'ORG#org_other#AUDIT', `${change(2).at}#XYZ`]) {
      await expect(log.list('org_cur', { limit: 5, cursor: b64({ sk }) }, T0)).rejects.toThrow(
        InvalidAuditCursorError,
      );
    }
    // The issued one resumes after the newest entry.
    const next = await log.list('org_cur', { limit: 5, cursor: issued }, T0);
    expect(next.entries.map((e) => e.target)).toEqual(['key_0']);
  });
});

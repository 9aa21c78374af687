import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  AUDIT_RETENTION_DAYS,
  type AuditAction,
  type AuditActor,
  type AuditEntry,
} from '../../../core/schemas/api/audit';
import { itemKeys } from '../item-keys';
import { type DynamoTable, isConditionFailed } from './dynamo';

/** What a caller records: the change; the store adds the id, and the time unless given. */
export interface AuditChange {
  action: AuditAction;
  actor: AuditActor;
  /** What the change applies to (a key id, a provider, a flag scope, the refused route); null: the organization. */
  target: string | null;
  /** The value before and after the change. Never a secret: callers pass views, not stored credentials. */
  before: unknown;
  after: unknown;
  /** ISO time of the change. */
  at: string;
}

/** One page of the log, newest first. */
export interface AuditLogPage {
  entries: AuditEntry[];
  /** Opaque; pass back for the next (older) page; null at the end. */
  nextCursor: string | null;
}

/** Thrown for a cursor this store did not issue (the API maps it to 400 on `cursor`). */
export class InvalidAuditCursorError extends Error {
  override readonly name = 'InvalidAuditCursorError';
}

/**
 * The organization's audit log (issue 21): append-only. The interface has no update or delete; every
 * write is a put conditioned on the item not existing, so no entry can be overwritten, and each entry
 * keeps the retention in force when it was written (DynamoDB TTL deletes it afterwards; readers skip
 * expired entries, as TTL deletes lazily).
 */
export interface AuditLog {
  /** Appends one entry. Other helpers call this after their own change (e.g. settled-spend corrections). */
  record(orgId: string, change: AuditChange): Promise<AuditEntry>;
  /** Newest first; `action` filters. */
  list(
    orgId: string,
    query: { limit: number; cursor: string | null; action?: AuditAction },
    nowMs: number,
  ): Promise<AuditLogPage>;
  /** Days a new entry is kept (the organization's setting, else {@link AUDIT_RETENTION_DAYS}.default). */
  retentionDays(orgId: string): Promise<number>;
  setRetentionDays(orgId: string, days: number, at: string): Promise<void>;
}

const DAY_SECONDS = 86_400;
/** Sort keys this store writes: `<ISO ms time>#<16 hex>`. A cursor must name one. */
const SK_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[0-9a-f]{16}$/;
/** Queries of one page at most (an `action` filter over a long log reads on, up to this many). */
const MAX_READS_PER_PAGE = 10;
/**
 * How long a container reuses an organization's retention for new entries: a change made elsewhere
 * applies to this container's entries within a minute (the one that made it applies it at once).
 */
export const RETENTION_CACHE_MS = 60_000;

export class DynamoAuditLog implements AuditLog {
  private readonly retention = new Map<string, { days: number; readAtMs: number }>();

  constructor(
    private readonly table: DynamoTable,
    private readonly randomId: () => string = () => randomBytes(8).toString('hex'),
    private readonly clock: () => number = Date.now,
  ) {}

  /** The retention for a new entry: the organization's setting, read at most once a minute. */
  private async retentionForWrite(orgId: string): Promise<number> {
    const cached = this.retention.get(orgId);
    const now = this.clock();
    if (cached && now - cached.readAtMs < RETENTION_CACHE_MS) return cached.days;
    const days = await this.retentionDays(orgId);
    this.retention.set(orgId, { days, readAtMs: now });
    return days;
  }

  async record(orgId: string, change: AuditChange): Promise<AuditEntry> {
    const days = await this.retentionForWrite(orgId);
    const at = new Date(Date.parse(change.at)).toISOString();
    for (let attempt = 0; ; attempt++) {
      const entry: AuditEntry = {
        id: this.randomId(),
        at,
        action: change.action,
        actor: change.actor,
        target: change.target,
        before: plain(change.before),
        after: plain(change.after),
      };
      try {
        await this.table.doc.send(
          new PutCommand({
            TableName: this.table.tableName,
            Item: {
              pk: itemKeys.auditPk(orgId),
              sk: `${at}#${entry.id}`,
              ...entry,
              expiresAt: Math.floor(Date.parse(at) / 1000) + days * DAY_SECONDS,
            },
            // Append-only: an entry is never replaced, whatever the id generator does.
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return entry;
      } catch (err) {
        if (!isConditionFailed(err) || attempt >= 2) throw err;
      }
    }
  }

  async list(
    orgId: string,
    query: { limit: number; cursor: string | null; action?: AuditAction },
    nowMs: number,
  ): Promise<AuditLogPage> {
    const pk = itemKeys.auditPk(orgId);
    let startKey: Record<string, unknown> | undefined =
      query.cursor === null ? undefined : { pk, sk: decodeCursor(query.cursor) };
    const nowSeconds = Math.floor(nowMs / 1000);
    const entries: AuditEntry[] = [];
    let reads = 0;
    // DynamoDB applies Limit before the filter: read on until the page is full (bounded).
    do {
      const out = await this.table.doc.send(
        new QueryCommand({
          TableName: this.table.tableName,
          KeyConditionExpression: 'pk = :pk',
          FilterExpression:
            query.action === undefined ? 'expiresAt > :now' : 'expiresAt > :now AND #action = :action',
          ExpressionAttributeNames: query.action === undefined ? undefined : { '#action': 'action' },
          ExpressionAttributeValues: {
            ':pk': pk,
            ':now': nowSeconds,
            ...(query.action === undefined ? {} : { ':action': query.action }),
          },
          ScanIndexForward: false,
          // Never more evaluated than the page still needs, so the last key read is the resume point.
          Limit: query.limit - entries.length,
          ExclusiveStartKey: startKey,
        }),
      );
      reads++;
      for (const item of out.Items ?? []) entries.push(toEntry(item));
      startKey = out.LastEvaluatedKey;
    } while (startKey !== undefined && entries.length < query.limit && reads < MAX_READS_PER_PAGE);
    // DynamoDB names a last key whenever Limit was reached, so the page after a full one may be empty.
    return { entries, nextCursor: startKey === undefined ? null : encodeCursor(String(startKey.sk)) };
  }

  async retentionDays(orgId: string): Promise<number> {
    const out = await this.table.doc.send(
      new GetCommand({ TableName: this.table.tableName, Key: itemKeys.auditSettings(orgId) }),
    );
    const days = out.Item?.retentionDays;
    return typeof days === 'number' &&
      Number.isInteger(days) &&
      days >= AUDIT_RETENTION_DAYS.min &&
      days <= AUDIT_RETENTION_DAYS.max
      ? days
      : AUDIT_RETENTION_DAYS.default;
  }

  async setRetentionDays(orgId: string, days: number, at: string): Promise<void> {
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: { ...itemKeys.auditSettings(orgId), retentionDays: days, updatedAt: at },
      }),
    );
    this.retention.set(orgId, { days, readAtMs: this.clock() });
  }
}

/** A JSON value as stored: undefined members dropped (the document client refuses them), undefined → null. */
function plain(value: unknown): unknown {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown);
}

function encodeCursor(sk: string): string {
  return Buffer.from(JSON.stringify({ sk }), 'utf8').toString('base64url');
}

/** The sort key a cursor names; only the shape this store writes (the partition is the caller's own). */
function decodeCursor(cursor: string): string {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const sk = typeof parsed === 'object' && parsed !== null ? (parsed as { sk?: unknown }).sk : undefined;
    if (typeof sk === 'string' && SK_PATTERN.test(sk)) return sk;
  } catch {
    // fall through
  }
  throw new InvalidAuditCursorError('cursor is not one this API issued');
}

function toEntry(item: Record<string, unknown>): AuditEntry {
  return {
    id: String(item.id),
    at: String(item.at),
    action: item.action as AuditAction,
    actor: item.actor as AuditActor,
    target: typeof item.target === 'string' ? item.target : null,
    before: item.before ?? null,
    after: item.after ?? null,
  };
}

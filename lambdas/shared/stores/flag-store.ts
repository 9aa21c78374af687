import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type DynamoTable, queryAll } from './dynamo';

export type FlagState = 'SUSPENDED' | 'THROTTLED';

/**
 * A kill flag (GUARDRAIL_FLAGS, spec 2.4): one item per active key of a blocked organization, keyed by
 * the opaque HMAC of the key prefix so raw keys never appear at the edge.
 */
export interface FlagRecord {
  flagKey: string;
  orgId: string;
  state: FlagState;
  triggerType: string;
  observedValue: number;
  thresholdValue: number;
  mode: string;
  /** ISO time the flag was set. */
  setAt: string;
  /** Epoch seconds; the TTL attribute. Readers treat a past value as no flag (TTL deletes lazily). */
  expiresAt: number;
}

export interface FlagStore {
  put(flag: FlagRecord): Promise<void>;
  /** The flag for `flagKey`, or undefined when there is none or it has expired at `nowMs`. */
  get(flagKey: string, nowMs: number): Promise<FlagRecord | undefined>;
  delete(flagKey: string): Promise<void>;
  /** The organization's unexpired flags. */
  listByOrg(orgId: string, nowMs: number): Promise<FlagRecord[]>;
}

export function isFlagRecord(item: unknown): item is FlagRecord {
  if (typeof item !== 'object' || item === null) return false;
  const f = item as Record<string, unknown>;
  return (
    typeof f.flagKey === 'string' &&
    typeof f.orgId === 'string' &&
    (f.state === 'SUSPENDED' || f.state === 'THROTTLED') &&
    typeof f.expiresAt === 'number' &&
    Number.isFinite(f.expiresAt)
  );
}

export function isExpired(flag: FlagRecord, nowMs: number): boolean {
  return flag.expiresAt * 1000 <= nowMs;
}

export class DynamoFlagStore implements FlagStore {
  constructor(private readonly table: DynamoTable) {}

  async put(flag: FlagRecord): Promise<void> {
    await this.table.doc.send(new PutCommand({ TableName: this.table.tableName, Item: { ...flag } }));
  }

  async get(flagKey: string, nowMs: number): Promise<FlagRecord | undefined> {
    const out = await this.table.doc.send(
      new GetCommand({ TableName: this.table.tableName, Key: { flagKey } }),
    );
    if (!isFlagRecord(out.Item) || isExpired(out.Item, nowMs)) return undefined;
    return out.Item;
  }

  async delete(flagKey: string): Promise<void> {
    await this.table.doc.send(new DeleteCommand({ TableName: this.table.tableName, Key: { flagKey } }));
  }

  async listByOrg(orgId: string, nowMs: number): Promise<FlagRecord[]> {
    const items = await queryAll(this.table, {
      IndexName: 'byOrg',
      KeyConditionExpression: 'orgId = :org',
      ExpressionAttributeValues: { ':org': orgId },
    });
    return items.filter(
      (item): item is FlagRecord & Record<string, unknown> => isFlagRecord(item) && !isExpired(item, nowMs),
    );
  }
}

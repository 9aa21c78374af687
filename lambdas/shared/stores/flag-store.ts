import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { VerdictScope } from '../../../core/guardrails/types';
import { type DynamoTable, isConditionFailed, queryAll } from './dynamo';

export type FlagState = 'SUSPENDED' | 'THROTTLED';

/** What a flag stops (design decision 13): the whole organization, one API key, or one agent session. */
export type FlagScope = VerdictScope;

/**
 * A kill flag (GUARDRAIL_FLAGS, spec 2.4). Items are keyed by the opaque HMAC of the key prefix plus a
 * scope suffix (lambdas/shared/flag-item-keys.ts), so raw keys never appear at the edge.
 */
export interface FlagRecord {
  /** The item key: `<flagKey>`, `<flagKey>#org` or `<flagKey>#s#<session digest>`. */
  flagKey: string;
  orgId: string;
  scope: FlagScope;
  /**
   * Public id of the key the item belongs to: the flagged key (key scope), the session's key (session
   * scope), or the key this copy of an organization flag covers (organization scope). Null only on
   * items written before scopes existed.
   */
  keyId: string | null;
  /** The agent session (session scope only). */
  sessionId: string | null;
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
  /**
   * Writes the flag unless its item holds a stronger unexpired flag ({@link outranks}): a weaker verdict
   * never downgrades a suspension, and a shorter one never cuts it short. True when written.
   */
  put(flag: FlagRecord, nowMs: number): Promise<boolean>;
  /** The flag for `flagKey`, or undefined when there is none or it has expired at `nowMs`. */
  get(flagKey: string, nowMs: number): Promise<FlagRecord | undefined>;
  /** The unexpired flags among these items (one round trip), in no particular order. */
  getMany(flagKeys: readonly string[], nowMs: number): Promise<FlagRecord[]>;
  delete(flagKey: string): Promise<void>;
  /** The organization's unexpired flags. */
  listByOrg(orgId: string, nowMs: number): Promise<FlagRecord[]>;
  /**
   * The unexpired flag items of one key (every item whose key starts with its flag key: key,
   * organization copy, sessions), from one query of the organization's index.
   */
  listByKey(orgId: string, flagKey: string, nowMs: number): Promise<FlagRecord[]>;
}

const SCOPES: ReadonlySet<unknown> = new Set<FlagScope>(['organization', 'key', 'session']);

/**
 * A stored item as a flag, or undefined when it is not one. Items written before scopes existed (one
 * per key at `<flagKey>`, written for the whole organization) read as organization scope.
 */
export function parseFlagItem(item: unknown): FlagRecord | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const f = item as Record<string, unknown>;
  if (
    typeof f.flagKey !== 'string' ||
    typeof f.orgId !== 'string' ||
    (f.state !== 'SUSPENDED' && f.state !== 'THROTTLED') ||
    typeof f.expiresAt !== 'number' ||
    !Number.isFinite(f.expiresAt)
  ) {
    return undefined;
  }
  if (SCOPES.has(f.scope)) return item as FlagRecord;
  if (f.scope !== undefined) return undefined;
  return { ...(item as FlagRecord), scope: 'organization', keyId: null, sessionId: null };
}

export function isExpired(flag: FlagRecord, nowMs: number): boolean {
  return flag.expiresAt * 1000 <= nowMs;
}

/** Whether `a` is the stronger flag: SUSPENDED over THROTTLED, then the later expiry. */
export function outranks(
  a: Pick<FlagRecord, 'state' | 'expiresAt'>,
  b: Pick<FlagRecord, 'state' | 'expiresAt'>,
) {
  if (a.state !== b.state) return a.state === 'SUSPENDED';
  return a.expiresAt > b.expiresAt;
}

/**
 * Whether `incoming` may replace what its item holds at `nowMs` (the rule {@link FlagStore.put} enforces,
 * as a condition expression in DynamoDB): nothing, an expired flag, or a flag that does not outrank it.
 */
export function mayReplace(existing: FlagRecord | undefined, incoming: FlagRecord, nowMs: number): boolean {
  return existing === undefined || isExpired(existing, nowMs) || !outranks(existing, incoming);
}

/** The strongest unexpired flag among `flags`, or undefined. */
export function strongestFlag(flags: readonly FlagRecord[], nowMs: number): FlagRecord | undefined {
  let best: FlagRecord | undefined;
  for (const f of flags) if (!isExpired(f, nowMs) && (best === undefined || outranks(f, best))) best = f;
  return best;
}

/** Most keys a BatchGetItem takes. The guard asks for at most three. */
const BATCH_GET_LIMIT = 100;
/** Unprocessed keys are asked again this many times before the read counts as failed. */
const BATCH_GET_ATTEMPTS = 3;

/**
 * The raw items at these keys, in one BatchGetItem (plus a retry of any unprocessed keys). Shared by the
 * store and the edge's flag source, which validates items itself.
 */
export async function batchGetFlagItems(
  doc: DynamoDBDocumentClient,
  tableName: string,
  flagKeys: readonly string[],
): Promise<unknown[]> {
  if (flagKeys.length === 0) return [];
  if (flagKeys.length > BATCH_GET_LIMIT) throw new RangeError(`at most ${BATCH_GET_LIMIT} flag keys`);
  const items: unknown[] = [];
  let keys: Record<string, unknown>[] = flagKeys.map((flagKey) => ({ flagKey }));
  for (let attempt = 0; attempt < BATCH_GET_ATTEMPTS && keys.length > 0; attempt++) {
    const out = await doc.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keys } } }));
    items.push(...(out.Responses?.[tableName] ?? []));
    keys = (out.UnprocessedKeys?.[tableName]?.Keys ?? []) as Record<string, unknown>[];
  }
  if (keys.length > 0) throw new Error(`flag read left ${keys.length} keys unprocessed`);
  return items;
}

export class DynamoFlagStore implements FlagStore {
  constructor(private readonly table: DynamoTable) {}

  async put(flag: FlagRecord, nowMs: number): Promise<boolean> {
    // No downgrade (issue 15.7): the write holds only if no stronger unexpired flag is in the item.
    const stronger =
      flag.state === 'SUSPENDED'
        ? '(#state <> :suspended OR expiresAt <= :exp)'
        : '(#state = :throttled AND expiresAt <= :exp)';
    try {
      await this.table.doc.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: { ...flag },
          ConditionExpression: `attribute_not_exists(flagKey) OR expiresAt <= :now OR ${stronger}`,
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':now': nowMs / 1000,
            ':exp': flag.expiresAt,
            ...(flag.state === 'SUSPENDED' ? { ':suspended': 'SUSPENDED' } : { ':throttled': 'THROTTLED' }),
          },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return false;
      throw err;
    }
  }

  async get(flagKey: string, nowMs: number): Promise<FlagRecord | undefined> {
    const out = await this.table.doc.send(
      new GetCommand({ TableName: this.table.tableName, Key: { flagKey } }),
    );
    const flag = parseFlagItem(out.Item);
    return flag === undefined || isExpired(flag, nowMs) ? undefined : flag;
  }

  async getMany(flagKeys: readonly string[], nowMs: number): Promise<FlagRecord[]> {
    const items = await batchGetFlagItems(this.table.doc, this.table.tableName, flagKeys);
    return unexpiredFlags(items, nowMs);
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
    return unexpiredFlags(items, nowMs);
  }

  async listByKey(orgId: string, flagKey: string, nowMs: number): Promise<FlagRecord[]> {
    const items = await queryAll(this.table, {
      IndexName: 'byOrg',
      KeyConditionExpression: 'orgId = :org AND begins_with(flagKey, :fk)',
      ExpressionAttributeValues: { ':org': orgId, ':fk': flagKey },
    });
    return unexpiredFlags(items, nowMs);
  }
}

function unexpiredFlags(items: readonly unknown[], nowMs: number): FlagRecord[] {
  const flags: FlagRecord[] = [];
  for (const item of items) {
    const flag = parseFlagItem(item);
    if (flag !== undefined && !isExpired(flag, nowMs)) flags.push(flag);
  }
  return flags;
}

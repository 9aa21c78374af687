import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { LedgerEntry } from '../../../core/ledger/ledger-entry';
import { itemKeys, padSeq } from '../item-keys';
import { type DynamoTable, isConditionFailed } from './dynamo';

export type { LedgerEntry };

export interface LedgerFilter {
  from?: string;
  to?: string;
  provider?: string;
  model?: string;
  projectId?: string;
  featureId?: string;
  source?: string;
}

export interface LedgerPage {
  entries: LedgerEntry[];
  /** Opaque; pass back as `cursor` for the next (older) page; null at the end. */
  nextCursor: string | null;
}

export interface LedgerStore {
  /**
   * Writes the entries of the Kinesis record `seq`, exactly once: an entry already written by an
   * earlier record (a resent event id) is skipped; one written by this same record (a crashed attempt
   * being replayed) is rewritten. Returns the entries that count as new for this record.
   */
  putForRecord(orgId: string, seq: string, entries: LedgerEntry[]): Promise<LedgerEntry[]>;
  query(orgId: string, filter: LedgerFilter, limit: number, cursor: string | null): Promise<LedgerPage>;
}

/** Thrown for a cursor that this store did not issue (the API maps it to 400). */
export class InvalidCursorError extends Error {
  override readonly name = 'InvalidCursorError';
}

const FILTER_FIELDS = ['provider', 'model', 'projectId', 'featureId', 'source'] as const;

export class DynamoLedgerStore implements LedgerStore {
  constructor(private readonly table: DynamoTable) {}

  async putForRecord(orgId: string, seq: string, entries: LedgerEntry[]): Promise<LedgerEntry[]> {
    const padded = padSeq(seq);
    const results = await Promise.all(
      entries.map(async (entry) => {
        try {
          await this.table.doc.send(
            new PutCommand({
              TableName: this.table.tableName,
              Item: {
                pk: itemKeys.ledgerPk(orgId),
                sk: itemKeys.ledgerSk(entry.ts, entry.eventId),
                seq: padded,
                ...entry,
              },
              ConditionExpression: 'attribute_not_exists(pk) OR seq = :seq',
              ExpressionAttributeValues: { ':seq': padded },
            }),
          );
          return entry;
        } catch (err) {
          if (isConditionFailed(err)) return undefined;
          throw err;
        }
      }),
    );
    return results.filter((e): e is LedgerEntry => e !== undefined);
  }

  async query(
    orgId: string,
    filter: LedgerFilter,
    limit: number,
    cursor: string | null,
  ): Promise<LedgerPage> {
    const from = filter.from ?? '0';
    // '~' sorts after every character of an ISO timestamp and event id.
    const to = `${filter.to ?? '9999'}~`;
    const values: Record<string, unknown> = { ':pk': itemKeys.ledgerPk(orgId), ':from': from, ':to': to };
    const names: Record<string, string> = {};
    const conditions: string[] = [];
    for (const field of FILTER_FIELDS) {
      const value = filter[field];
      if (value === undefined) continue;
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      conditions.push(`#${field} = :${field}`);
    }
    const resumeAt = cursor ? decodeCursor(cursor) : undefined;
    // DynamoDB refuses a start key outside the key condition (a 500 before): a cursor of another from/to
    // range, or a forged one, is the caller's error.
    if (resumeAt !== undefined && (resumeAt < from || resumeAt > to)) {
      throw new InvalidCursorError(
        'cursor lies outside this from/to range: send the range it was issued for',
      );
    }
    let startKey: Record<string, unknown> | undefined =
      resumeAt !== undefined ? { pk: itemKeys.ledgerPk(orgId), sk: resumeAt } : undefined;
    const entries: LedgerEntry[] = [];
    let lastSk: string | null = null;
    let more = true;
    // DynamoDB applies Limit before the filter, so keep reading until the page is full.
    while (entries.length < limit && more) {
      const out = await this.table.doc.send(
        new QueryCommand({
          TableName: this.table.tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          FilterExpression: conditions.length ? conditions.join(' AND ') : undefined,
          ExpressionAttributeNames: conditions.length ? names : undefined,
          ExpressionAttributeValues: values,
          ScanIndexForward: false,
          Limit: Math.max(limit - entries.length, 25),
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of out.Items ?? []) {
        if (entries.length === limit) break;
        entries.push(toEntry(item));
        lastSk = String(item.sk);
      }
      startKey = out.LastEvaluatedKey;
      more = startKey !== undefined;
    }
    // A full page may have a successor; the cursor resumes strictly after its last entry.
    const hasNext = (entries.length === limit || more) && lastSk !== null;
    return { entries, nextCursor: hasNext && lastSk !== null ? encodeCursor(lastSk) : null };
  }
}

function encodeCursor(sk: string): string {
  return Buffer.from(JSON.stringify({ sk }), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      typeof (parsed as { sk?: unknown }).sk === 'string'
    ) {
      return (parsed as { sk: string }).sk;
    }
  } catch {
    // fall through
  }
  throw new InvalidCursorError('cursor is not one this API issued');
}

function toEntry(item: Record<string, unknown>): LedgerEntry {
  const { pk: _pk, sk: _sk, seq: _seq, ...rest } = item;
  // Entries written before the field existed have no fingerprint.
  return {
    ...rest,
    fingerprint: typeof rest.fingerprint === 'string' ? rest.fingerprint : null,
  } as LedgerEntry;
}

import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { itemKeys, padSeq } from '../item-keys';
import { type DynamoTable, isConditionFailed } from './dynamo';

/** The guardrail engine's per-organization state with the sequence number of the last record applied. */
export interface StoredGuardrailState {
  state: unknown;
  /** Padded sequence number of the last Kinesis record folded into `state`, or null for a fresh org. */
  lastSeq: string | null;
  /**
   * Writes since the item was created (absent in items written before corrections existed: 0). Every write
   * is conditioned on it, so a correction written between a consumer's read and its write makes the
   * consumer's write fail and its record retry, instead of the correction being overwritten.
   */
  rev?: number;
}

export interface GuardrailStateStore {
  get(orgId: string): Promise<StoredGuardrailState>;
  /**
   * Saves `state` as of record `seq`, only if the stored item is still the one read (`expectedLastSeq`
   * and `expectedRev`; optimistic concurrency, design decision 5). Returns false when another writer got
   * there first.
   */
  put(
    orgId: string,
    state: unknown,
    seq: string,
    expectedLastSeq: string | null,
    expectedRev?: number,
  ): Promise<boolean>;
  /**
   * Rewrites the stored state outside the stream (an admin's correction of settled spend): read, `change`,
   * write conditioned on the revision read; retried on a race. Nothing is written for an organization
   * without state. Returns whether a state was changed.
   */
  update(orgId: string, change: (state: unknown) => unknown): Promise<boolean>;
}

export class DynamoGuardrailStateStore implements GuardrailStateStore {
  constructor(private readonly table: DynamoTable) {}

  async get(orgId: string): Promise<StoredGuardrailState> {
    const out = await this.table.doc.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: itemKeys.guardrailState(orgId),
        ConsistentRead: true,
      }),
    );
    if (!out.Item || typeof out.Item.state !== 'string') return { state: undefined, lastSeq: null, rev: 0 };
    return {
      state: JSON.parse(out.Item.state) as unknown,
      lastSeq: String(out.Item.lastSeq),
      rev: typeof out.Item.rev === 'number' ? out.Item.rev : 0,
    };
  }

  async put(
    orgId: string,
    state: unknown,
    seq: string,
    expectedLastSeq: string | null,
    expectedRev = 0,
  ): Promise<boolean> {
    return this.write(orgId, state, padSeq(seq), expectedLastSeq, expectedRev);
  }

  async update(orgId: string, change: (state: unknown) => unknown): Promise<boolean> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const stored = await this.get(orgId);
      if (stored.lastSeq === null) return false;
      const written = await this.write(
        orgId,
        change(stored.state),
        stored.lastSeq,
        stored.lastSeq,
        stored.rev ?? 0,
      );
      if (written) return true;
    }
    throw new Error(`guardrail state of ${orgId} kept changing; the correction was not applied to it`);
  }

  private async write(
    orgId: string,
    state: unknown,
    lastSeq: string,
    expectedLastSeq: string | null,
    expectedRev: number,
  ): Promise<boolean> {
    const revCondition = expectedRev === 0 ? 'attribute_not_exists(rev)' : 'rev = :rev';
    try {
      await this.table.doc.send(
        new PutCommand({
          TableName: this.table.tableName,
          // Stored as a string: one attribute, and its size is exactly what the engine's bound documents.
          Item: {
            ...itemKeys.guardrailState(orgId),
            state: JSON.stringify(state),
            lastSeq,
            rev: expectedRev + 1,
          },
          ConditionExpression:
            expectedLastSeq === null ? 'attribute_not_exists(pk)' : `lastSeq = :expected AND ${revCondition}`,
          ExpressionAttributeValues:
            expectedLastSeq === null
              ? undefined
              : { ':expected': expectedLastSeq, ...(expectedRev === 0 ? {} : { ':rev': expectedRev }) },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return false;
      throw err;
    }
  }
}

import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { itemKeys, padSeq } from '../item-keys';
import { type DynamoTable, isConditionFailed } from './dynamo';

/** The guardrail engine's per-organization state with the sequence number of the last record applied. */
export interface StoredGuardrailState {
  state: unknown;
  /** Padded sequence number of the last Kinesis record folded into `state`, or null for a fresh org. */
  lastSeq: string | null;
}

export interface GuardrailStateStore {
  get(orgId: string): Promise<StoredGuardrailState>;
  /**
   * Saves `state` as of record `seq`, only if the stored item is still at `expectedLastSeq`
   * (optimistic concurrency; design decision 5). Returns false when another writer got there first.
   */
  put(orgId: string, state: unknown, seq: string, expectedLastSeq: string | null): Promise<boolean>;
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
    if (!out.Item || typeof out.Item.state !== 'string') return { state: undefined, lastSeq: null };
    return { state: JSON.parse(out.Item.state) as unknown, lastSeq: String(out.Item.lastSeq) };
  }

  async put(orgId: string, state: unknown, seq: string, expectedLastSeq: string | null): Promise<boolean> {
    try {
      await this.table.doc.send(
        new PutCommand({
          TableName: this.table.tableName,
          // Stored as a string: one attribute, and its size is exactly what the engine's bound documents.
          Item: { ...itemKeys.guardrailState(orgId), state: JSON.stringify(state), lastSeq: padSeq(seq) },
          ConditionExpression: expectedLastSeq === null ? 'attribute_not_exists(pk)' : 'lastSeq = :expected',
          ExpressionAttributeValues: expectedLastSeq === null ? undefined : { ':expected': expectedLastSeq },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return false;
      throw err;
    }
  }
}

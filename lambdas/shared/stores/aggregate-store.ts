import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AggregateDelta } from '../../../core/ledger/aggregate-deltas';
import { itemKeys, padSeq } from '../item-keys';
import { type DynamoTable, isConditionFailed, queryAll } from './dynamo';

/** A stored aggregate item's counters. Money in integer nano-USD, so DynamoDB's ADD stays exact. */
export interface AggregateRow {
  sk: string;
  costNanos: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
}

export interface AggregateStore {
  /**
   * Adds the deltas of Kinesis record `seq`, each item at most once: an item whose last applied
   * sequence number is not below `seq` has already seen this record and is left alone.
   */
  applyRecord(orgId: string, seq: string, deltas: AggregateDelta[]): Promise<void>;
  /** Rows whose sort key starts with `prefix` (e.g. `DAY#2026-11-22`; see core/ledger aggregateSk), in key order. */
  list(orgId: string, prefix: string): Promise<AggregateRow[]>;
  /** Rows whose sort key lies in [from, to] (e.g. hourly buckets over a range). */
  range(orgId: string, from: string, to: string): Promise<AggregateRow[]>;
}

export class DynamoAggregateStore implements AggregateStore {
  constructor(private readonly table: DynamoTable) {}

  async applyRecord(orgId: string, seq: string, deltas: AggregateDelta[]): Promise<void> {
    const padded = padSeq(seq);
    await Promise.all(
      deltas.map(async (d) => {
        try {
          await this.table.doc.send(
            new UpdateCommand({
              TableName: this.table.tableName,
              Key: { pk: itemKeys.aggregatePk(orgId), sk: d.sk },
              UpdateExpression:
                'ADD costNanos :c, calls :n, inputTokens :i, outputTokens :o SET lastSeq = :seq' +
                (d.expiresAt !== undefined ? ', expiresAt = :exp' : ''),
              ConditionExpression: 'attribute_not_exists(lastSeq) OR lastSeq < :seq',
              ExpressionAttributeValues: {
                ':c': d.costNanos,
                ':n': d.calls,
                ':i': d.inputTokens,
                ':o': d.outputTokens,
                ':seq': padded,
                ...(d.expiresAt !== undefined ? { ':exp': d.expiresAt } : {}),
              },
            }),
          );
        } catch (err) {
          if (!isConditionFailed(err)) throw err;
        }
      }),
    );
  }

  async list(orgId: string, prefix: string): Promise<AggregateRow[]> {
    return this.queryAll(orgId, 'pk = :pk AND begins_with(sk, :p)', { ':p': prefix });
  }

  async range(orgId: string, from: string, to: string): Promise<AggregateRow[]> {
    return this.queryAll(orgId, 'pk = :pk AND sk BETWEEN :from AND :to', { ':from': from, ':to': to });
  }

  private async queryAll(
    orgId: string,
    condition: string,
    values: Record<string, unknown>,
  ): Promise<AggregateRow[]> {
    const items = await queryAll(this.table, {
      KeyConditionExpression: condition,
      ExpressionAttributeValues: { ':pk': itemKeys.aggregatePk(orgId), ...values },
    });
    return items.map((item) => ({
      sk: String(item.sk),
      costNanos: Number(item.costNanos ?? 0),
      calls: Number(item.calls ?? 0),
      inputTokens: Number(item.inputTokens ?? 0),
      outputTokens: Number(item.outputTokens ?? 0),
    }));
  }
}

import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AggregateDelta } from '../../../core/ledger/aggregate-deltas';
import { MAX_SUM, saturatingAdd } from '../../../core/ledger/saturating-sum';
import { itemKeys, padSeq } from '../item-keys';
import { type DynamoTable, isConditionFailed, queryAll } from './dynamo';

/**
 * A stored aggregate item's counters. Money in integer nano-USD, so DynamoDB's ADD stays exact; every
 * counter saturates at MAX_SUM (2^53 − 1) rather than pass what a JavaScript number holds exactly.
 */
export interface AggregateRow {
  sk: string;
  costNanos: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** The part of costNanos no budget lease counted (absent on items written before it existed: 0). */
  unleasedCostNanos: number;
}

/** The counters of an aggregate item; each saturates at MAX_SUM (core/ledger/saturating-sum.ts). */
const COUNTERS = ['costNanos', 'calls', 'inputTokens', 'outputTokens', 'unleasedCostNanos'] as const;
/** Read-and-set rounds before giving up when another writer keeps changing the item. */
const SATURATE_ATTEMPTS = 5;

export interface AggregateStore {
  /**
   * Adds the deltas of Kinesis record `seq`, each item at most once: an item whose last applied
   * sequence number is not below `seq` has already seen this record and is left alone. Sums saturate
   * at MAX_SUM (the item is then marked `saturated`).
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
    await Promise.all(deltas.map((d) => this.applyDelta(orgId, padded, d)));
  }

  /**
   * One item: an atomic ADD while every counter has room below MAX_SUM (the common case: one write),
   * else a read and a SET of the saturated sums, conditional on the item being unchanged since read.
   */
  private async applyDelta(orgId: string, padded: string, d: AggregateDelta): Promise<void> {
    const key = { pk: itemKeys.aggregatePk(orgId), sk: d.sk };
    const exp = d.expiresAt !== undefined ? { ':exp': d.expiresAt } : {};
    try {
      await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: key,
          UpdateExpression:
            'ADD costNanos :c, calls :n, inputTokens :i, outputTokens :o, unleasedCostNanos :u SET lastSeq = :seq' +
            (d.expiresAt !== undefined ? ', expiresAt = :exp' : ''),
          ConditionExpression:
            '(attribute_not_exists(lastSeq) OR lastSeq < :seq) AND ' +
            COUNTERS.map((c) => `(attribute_not_exists(${c}) OR ${c} <= :room_${c})`).join(' AND '),
          ExpressionAttributeValues: {
            ':c': d.costNanos,
            ':n': d.calls,
            ':i': d.inputTokens,
            ':o': d.outputTokens,
            ':u': d.unleasedCostNanos,
            ':seq': padded,
            ...Object.fromEntries(COUNTERS.map((c) => [`:room_${c}`, MAX_SUM - d[c]])),
            ...exp,
          },
        }),
      );
      return;
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
    // Either this record was applied already, or a counter would pass MAX_SUM: find out which.
    for (let attempt = 0; attempt < SATURATE_ATTEMPTS; attempt++) {
      const out = await this.table.doc.send(
        new GetCommand({ TableName: this.table.tableName, Key: key, ConsistentRead: true }),
      );
      const item = out.Item;
      const lastSeq = item?.lastSeq === undefined ? undefined : String(item.lastSeq);
      if (lastSeq !== undefined && lastSeq >= padded) return; // applied already
      const sums = Object.fromEntries(
        COUNTERS.map((c) => [`:${c}`, saturatingAdd(Number(item?.[c] ?? 0), d[c])]),
      );
      try {
        await this.table.doc.send(
          new UpdateCommand({
            TableName: this.table.tableName,
            Key: key,
            UpdateExpression:
              `SET ${COUNTERS.map((c) => `${c} = :${c}`).join(', ')}, lastSeq = :seq, saturated = :yes` +
              (d.expiresAt !== undefined ? ', expiresAt = :exp' : ''),
            ConditionExpression: lastSeq === undefined ? 'attribute_not_exists(lastSeq)' : 'lastSeq = :old',
            ExpressionAttributeValues: {
              ...sums,
              ':seq': padded,
              ':yes': true,
              ...(lastSeq === undefined ? {} : { ':old': lastSeq }),
              ...exp,
            },
          }),
        );
        return;
      } catch (err) {
        if (!isConditionFailed(err)) throw err; // another writer got in between: read again
      }
    }
    throw new Error(`aggregate ${d.sk}: too many concurrent writers`);
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
      unleasedCostNanos: Number(item.unleasedCostNanos ?? 0),
    }));
  }
}

import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ReconciliationRecord } from '../../../core/reconciliation/view';
import { itemKeys } from '../item-keys';
import type { DynamoTable } from './dynamo';

/** The latest reconciliation of an organization (one item, replaced by every run). */
export interface ReconciliationStore {
  get(orgId: string): Promise<ReconciliationRecord | undefined>;
  put(orgId: string, record: ReconciliationRecord): Promise<void>;
}

export class DynamoReconciliationStore implements ReconciliationStore {
  constructor(private readonly table: DynamoTable) {}

  async get(orgId: string): Promise<ReconciliationRecord | undefined> {
    const out = await this.table.doc.send(
      new GetCommand({ TableName: this.table.tableName, Key: itemKeys.reconciliation(orgId) }),
    );
    if (!out.Item || typeof out.Item.record !== 'string') return undefined;
    return JSON.parse(out.Item.record) as ReconciliationRecord;
  }

  async put(orgId: string, record: ReconciliationRecord): Promise<void> {
    // One JSON attribute: per-model day cells are many small maps; DynamoDB bills by size either way.
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: {
          ...itemKeys.reconciliation(orgId),
          record: JSON.stringify(record),
          computedAt: record.computedAt,
        },
      }),
    );
  }
}

import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { itemKeys } from '../item-keys';
import type { DynamoTable } from './dynamo';

/**
 * An organization's budget caps and guardrail policy, stored as the JSON the API validated
 * (core/schemas budget, core/guardrails policy). Callers validate on read too: a stored item written
 * by an older version must not crash a consumer.
 */
export interface OrgConfig {
  budget: unknown;
  policy: unknown;
  updatedAt: string;
}

export interface OrgConfigStore {
  get(orgId: string): Promise<OrgConfig | undefined>;
  put(orgId: string, config: OrgConfig): Promise<void>;
}

export class DynamoOrgConfigStore implements OrgConfigStore {
  constructor(private readonly table: DynamoTable) {}

  async get(orgId: string): Promise<OrgConfig | undefined> {
    const out = await this.table.doc.send(
      new GetCommand({ TableName: this.table.tableName, Key: itemKeys.config(orgId), ConsistentRead: true }),
    );
    if (!out.Item) return undefined;
    return { budget: out.Item.budget, policy: out.Item.policy, updatedAt: String(out.Item.updatedAt) };
  }

  async put(orgId: string, config: OrgConfig): Promise<void> {
    await this.table.doc.send(
      new PutCommand({ TableName: this.table.tableName, Item: { ...itemKeys.config(orgId), ...config } }),
    );
  }
}

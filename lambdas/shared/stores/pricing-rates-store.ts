import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { itemKeys } from '../item-keys';
import type { DynamoTable } from './dynamo';

/**
 * An organization's own pricing rates (core/pricing `OrgRates`: negotiated multipliers, contracted
 * per-model prices, self-hosted endpoint families), stored as the JSON the API validated. One item per
 * organization, apart from the budget/policy item so that neither write can drop the other. Readers
 * validate again: an item written by another version must not fail an event (invalid → ignored).
 */
export interface PricingRatesRecord {
  rates: unknown;
  updatedAt: string;
}

export interface PricingRatesStore {
  get(orgId: string): Promise<PricingRatesRecord | undefined>;
  put(orgId: string, record: PricingRatesRecord): Promise<void>;
}

export class DynamoPricingRatesStore implements PricingRatesStore {
  constructor(private readonly table: DynamoTable) {}

  async get(orgId: string): Promise<PricingRatesRecord | undefined> {
    const out = await this.table.doc.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: itemKeys.pricingRates(orgId),
        ConsistentRead: true,
      }),
    );
    if (!out.Item) return undefined;
    return { rates: out.Item.rates, updatedAt: String(out.Item.updatedAt) };
  }

  async put(orgId: string, record: PricingRatesRecord): Promise<void> {
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: { ...itemKeys.pricingRates(orgId), rates: record.rates, updatedAt: record.updatedAt },
      }),
    );
  }
}

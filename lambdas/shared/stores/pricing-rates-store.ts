import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { itemKeys } from '../item-keys';
import { isConditionFailed, revisionCondition, type DynamoTable } from './dynamo';

/**
 * An organization's own pricing rates (core/pricing `OrgRates`: negotiated multipliers, contracted
 * per-model prices, self-hosted endpoint families), stored as the JSON the API validated. One item per
 * organization, apart from the budget/policy item so that neither write can drop the other. Readers
 * validate again: an item written by another version must not fail an event (invalid → ignored).
 */
export interface PricingRatesRecord {
  rates: unknown;
  updatedAt: string;
  /**
   * The write's revision: 1 for the first, one more for each after (0, or absent, for an item written
   * before revisions existed). A write names the revision it read, so that the audit's `before` of two
   * concurrent writes is what each really replaced.
   */
  rev?: number;
}

/** The rates changed between the read and the write; read again and redo the change. */
export class PricingRatesConflictError extends Error {
  constructor(orgId: string) {
    super(`the pricing rates of ${orgId} changed while they were being written`);
    this.name = 'PricingRatesConflictError';
  }
}

export interface PricingRatesStore {
  get(orgId: string): Promise<PricingRatesRecord | undefined>;
  /**
   * Writes `record` as revision `readRev + 1`, only if the stored revision is still `readRev` (0: no
   * item, or an item without a revision); otherwise throws {@link PricingRatesConflictError}.
   */
  put(orgId: string, record: Omit<PricingRatesRecord, 'rev'>, readRev: number): Promise<void>;
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
    return {
      rates: out.Item.rates,
      updatedAt: String(out.Item.updatedAt),
      rev: typeof out.Item.rev === 'number' ? out.Item.rev : 0,
    };
  }

  async put(orgId: string, record: Omit<PricingRatesRecord, 'rev'>, readRev: number): Promise<void> {
    try {
      await this.table.doc.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: {
            ...itemKeys.pricingRates(orgId),
            rates: record.rates,
            updatedAt: record.updatedAt,
            rev: readRev + 1,
          },
          ...revisionCondition(readRev),
        }),
      );
    } catch (err) {
      if (isConditionFailed(err)) throw new PricingRatesConflictError(orgId);
      throw err;
    }
  }
}

import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { itemKeys } from '../item-keys';
import type { DynamoTable } from './dynamo';

/** The latest Monte Carlo forecast of an organization (core/forecast output) and when it was computed. */
export interface StoredForecast {
  forecast: unknown;
  computedAt: string;
}

export interface ForecastStore {
  get(orgId: string): Promise<StoredForecast | undefined>;
  put(orgId: string, value: StoredForecast): Promise<void>;
}

export class DynamoForecastStore implements ForecastStore {
  constructor(private readonly table: DynamoTable) {}

  async get(orgId: string): Promise<StoredForecast | undefined> {
    const out = await this.table.doc.send(
      new GetCommand({ TableName: this.table.tableName, Key: itemKeys.forecast(orgId) }),
    );
    if (!out.Item || typeof out.Item.forecast !== 'string') return undefined;
    return { forecast: JSON.parse(out.Item.forecast) as unknown, computedAt: String(out.Item.computedAt) };
  }

  async put(orgId: string, value: StoredForecast): Promise<void> {
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: {
          ...itemKeys.forecast(orgId),
          forecast: JSON.stringify(value.forecast),
          computedAt: value.computedAt,
        },
      }),
    );
  }
}

import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { itemKeys } from '../item-keys';
import type { DynamoTable } from './dynamo';

/** One guardrail trip or soft-cap warning, for the dashboard's "recent trips". */
export interface TripRecord {
  at: string;
  layer: string;
  triggerType: string;
  observedValue: number;
  thresholdValue: number;
  mode: string;
  action: string;
  keyId: string | null;
  sessionId: string | null;
  message: string;
}

export interface TripLog {
  add(orgId: string, trip: TripRecord): Promise<void>;
  recent(orgId: string, limit: number): Promise<TripRecord[]>;
}

const RETENTION_SECONDS = 90 * 24 * 3600;

export class DynamoTripLog implements TripLog {
  constructor(private readonly table: DynamoTable) {}

  async add(orgId: string, trip: TripRecord): Promise<void> {
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: {
          pk: itemKeys.tripsPk(orgId),
          sk: `${trip.at}#${trip.layer}`,
          ...trip,
          expiresAt: Math.floor(Date.parse(trip.at) / 1000) + RETENTION_SECONDS,
        },
      }),
    );
  }

  async recent(orgId: string, limit: number): Promise<TripRecord[]> {
    const out = await this.table.doc.send(
      new QueryCommand({
        TableName: this.table.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': itemKeys.tripsPk(orgId) },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return (out.Items ?? []).map((item) => {
      const { pk: _pk, sk: _sk, expiresAt: _e, ...trip } = item;
      return trip as TripRecord;
    });
  }
}

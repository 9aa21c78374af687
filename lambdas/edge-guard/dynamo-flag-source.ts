import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FlagSource } from './guard';

/**
 * Reads raw flag items from the nearest Flags replica (eventually consistent: replica reads are local
 * to the replica region; a strongly consistent read would go nowhere faster). The guard validates the
 * item itself, so a malformed item is counted as a fail-open instead of silently meaning "no flag".
 */
export class DynamoFlagSource implements FlagSource {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(flagKey: string): Promise<unknown> {
    const out = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: { flagKey } }));
    return out.Item;
  }
}

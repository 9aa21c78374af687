import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGetFlagItems } from '../shared/stores/flag-store';
import type { FlagSource } from './guard';

/**
 * Reads raw flag items from the nearest Flags replica in one BatchGetItem (eventually consistent: replica
 * reads are local to the replica region; a strongly consistent read would go nowhere faster). The guard
 * validates the items itself, so a malformed item is counted as a fail-open instead of silently meaning
 * "no flag".
 */
export class DynamoFlagSource implements FlagSource {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  getMany(flagKeys: readonly string[]): Promise<readonly unknown[]> {
    return batchGetFlagItems(this.doc, this.tableName, flagKeys);
  }
}

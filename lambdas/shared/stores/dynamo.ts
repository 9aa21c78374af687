import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** What every DynamoDB-backed store needs: the document client and its table's name. */
export interface DynamoTable {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
}

/** True for the error DynamoDB returns when a ConditionExpression did not hold. */
export function isConditionFailed(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    'name' in err &&
    (err as { name: unknown }).name === 'ConditionalCheckFailedException'
  );
}

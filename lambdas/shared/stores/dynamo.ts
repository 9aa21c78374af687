import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';

/** What every DynamoDB-backed store needs: the document client and its table's name. */
export interface DynamoTable {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
}

/**
 * The condition of a write that names the revision it read (`rev`, the item's attribute): the stored
 * revision is still `readRev` (0: no item, or one written before revisions existed). The item written
 * carries `readRev + 1`.
 */
export function revisionCondition(readRev: number): {
  ConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, number>;
} {
  return readRev === 0
    ? {
        ConditionExpression: 'attribute_not_exists(#rev) OR #rev = :zero',
        ExpressionAttributeNames: { '#rev': 'rev' },
        ExpressionAttributeValues: { ':zero': 0 },
      }
    : {
        ConditionExpression: '#rev = :read',
        ExpressionAttributeNames: { '#rev': 'rev' },
        ExpressionAttributeValues: { ':read': readRev },
      };
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

/** Every item a query matches, following `LastEvaluatedKey` across pages. */
export async function queryAll(
  table: DynamoTable,
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await table.doc.send(
      new QueryCommand({ ...input, TableName: table.tableName, ExclusiveStartKey: startKey }),
    );
    items.push(...(out.Items ?? []));
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return items;
}

import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { itemKeys } from '../item-keys';
import { queryAll, type DynamoTable } from './dynamo';

/**
 * One audited correction of an organization's settled spend (`POST /v1/budget/settled/correct`): who made
 * it, when, why, and the settled figures before and after (nano-USD). Append-only: there is no update or
 * delete path (design decision 16).
 */
export interface SettledCorrection {
  readonly id: string;
  readonly orgId: string;
  /** The person who made it (Cognito `sub`) and their e-mail when known. */
  readonly actor: { readonly sub: string; readonly email: string | null };
  readonly at: string;
  readonly reason: string;
  readonly deltaNanos: number;
  readonly before: { readonly day: number; readonly month: number };
  readonly after: { readonly day: number; readonly month: number };
}

export interface SettledCorrectionLog {
  append(c: SettledCorrection): Promise<void>;
  list(orgId: string): Promise<SettledCorrection[]>;
}

export class DynamoSettledCorrectionLog implements SettledCorrectionLog {
  constructor(private readonly table: DynamoTable) {}

  async append(c: SettledCorrection): Promise<void> {
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: { pk: itemKeys.settledCorrectionsPk(c.orgId), sk: `${c.at}#${c.id}`, ...c },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async list(orgId: string): Promise<SettledCorrection[]> {
    const items = await queryAll(this.table, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': itemKeys.settledCorrectionsPk(orgId) },
    });
    return items.map((i) => {
      const { pk: _pk, sk: _sk, ...rest } = i;
      return rest as unknown as SettledCorrection;
    });
  }
}

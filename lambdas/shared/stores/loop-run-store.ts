import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { itemKeys } from '../item-keys';
import { isConditionFailed, type DynamoTable } from './dynamo';

/** One key's run of identical calls to one model, as every relay container adds to it. */
export interface LoopRunKey {
  readonly orgId: string;
  readonly keyId: string;
  /** Hash of key and model (the container's run id), as a string. */
  readonly run: string;
  /** The request's identity (the fingerprint's first 52 bits). */
  readonly fingerprint: number;
}

/**
 * The identical-call runs the relay's containers share (layer 2 in line, lambdas/relay/loop-check.ts).
 * A tight loop lands on a new container while the last one finishes its invocation (settle, event), so
 * one container's count sees only every other call; the shared run adds them up.
 */
export interface LoopRunStore {
  /**
   * Adds `calls` calls of `key.fingerprint` to the run and answers its count after: the run goes on when
   * it is of the same request and was last added to within `idleMs`, else it starts again at `calls`.
   */
  add(key: LoopRunKey, calls: number, nowMs: number, idleMs: number): Promise<number>;
  /** Starts the run again from zero: the pipeline took over its loop (its flag, then a Resume). */
  reset(key: Omit<LoopRunKey, 'fingerprint'>): Promise<void>;
}

/** Lifetime of a run item once it stops being added to (DynamoDB TTL; runs restart long before). */
const RUN_ITEM_TTL_SECONDS = 3600;

export class DynamoLoopRunStore implements LoopRunStore {
  constructor(private readonly table: DynamoTable) {}

  async add(key: LoopRunKey, calls: number, nowMs: number, idleMs: number): Promise<number> {
    const Key = itemKeys.loopRun(key.orgId, key.keyId, key.run);
    const expiresAt = Math.floor(nowMs / 1000) + RUN_ITEM_TTL_SECONDS;
    try {
      const out = await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key,
          UpdateExpression: 'SET lastTs = :now, expiresAt = :exp ADD #count :calls',
          ConditionExpression: 'fp = :fp AND lastTs >= :since',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: {
            ':now': nowMs,
            ':exp': expiresAt,
            ':calls': calls,
            ':fp': key.fingerprint,
            ':since': nowMs - idleMs,
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(out.Attributes?.count ?? calls);
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
    // Another request, or idle too long: the run starts again with this container's calls. Two
    // containers starting it at once each write theirs, the later one wins: it undercounts by the
    // other's calls, which that container's own count still holds.
    await this.table.doc.send(
      new UpdateCommand({
        TableName: this.table.tableName,
        Key,
        UpdateExpression: 'SET fp = :fp, #count = :calls, lastTs = :now, expiresAt = :exp',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: {
          ':fp': key.fingerprint,
          ':calls': calls,
          ':now': nowMs,
          ':exp': expiresAt,
        },
      }),
    );
    return calls;
  }

  async reset(key: Omit<LoopRunKey, 'fingerprint'>): Promise<void> {
    await this.table.doc
      .send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: itemKeys.loopRun(key.orgId, key.keyId, key.run),
          UpdateExpression: 'SET #count = :zero',
          ConditionExpression: 'attribute_exists(#count)',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':zero': 0 },
        }),
      )
      .catch((err: unknown) => {
        if (!isConditionFailed(err)) throw err;
      });
  }
}

import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { itemKeys } from '../item-keys';
import { isConditionFailed, queryAll, type DynamoTable } from './dynamo';

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
   * `likelyRepeat` (this container saw the same request last) only orders the store's two conditional
   * writes so that the expected case takes one round trip.
   */
  add(key: LoopRunKey, calls: number, nowMs: number, idleMs: number, likelyRepeat?: boolean): Promise<number>;
  /**
   * Starts the run again from zero if it has reached `atLeast` calls: the pipeline took over the loop
   * that reached it (its flag, then a Resume). A run below it is a new one, begun after the Resume by
   * another container, and is left alone.
   */
  reset(key: Omit<LoopRunKey, 'fingerprint'>, atLeast: number): Promise<void>;
  /**
   * Starts every run of a key (null: of the whole organization) again from zero: a person resumed it,
   * so the calls that made the runs must not count against the calls after the Resume.
   */
  resetAll(orgId: string, keyId: string | null): Promise<void>;
}

/** Lifetime of a run item once it stops being added to (DynamoDB TTL; runs restart long before). */
const RUN_ITEM_TTL_SECONDS = 3600;
const expiresAtOf = (nowMs: number): number => Math.floor(nowMs / 1000) + RUN_ITEM_TTL_SECONDS;

export class DynamoLoopRunStore implements LoopRunStore {
  constructor(private readonly table: DynamoTable) {}

  async add(
    key: LoopRunKey,
    calls: number,
    nowMs: number,
    idleMs: number,
    likelyRepeat = false,
  ): Promise<number> {
    // Each write is conditional, so whichever comes first, exactly one of them applies per attempt;
    // a lost race (the other case became true meanwhile) tries again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const first = likelyRepeat
        ? this.goOn(key, calls, nowMs, idleMs)
        : this.restart(key, calls, nowMs, idleMs);
      const a = await first;
      if (a !== undefined) return a;
      const second = likelyRepeat
        ? this.restart(key, calls, nowMs, idleMs)
        : this.goOn(key, calls, nowMs, idleMs);
      const b = await second;
      if (b !== undefined) return b;
    }
    throw new Error('the loop run kept changing under concurrent writes');
  }

  /** The run of the same request, added to within `idleMs`, goes on; undefined when it is not that. */
  private async goOn(
    key: LoopRunKey,
    calls: number,
    nowMs: number,
    idleMs: number,
  ): Promise<number | undefined> {
    try {
      const out = await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: itemKeys.loopRun(key.orgId, key.keyId, key.run),
          UpdateExpression: 'SET lastTs = :now, expiresAt = :exp ADD #count :calls',
          ConditionExpression: 'fp = :fp AND lastTs >= :since',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: {
            ':now': nowMs,
            ':exp': expiresAtOf(nowMs),
            ':calls': calls,
            ':fp': key.fingerprint,
            ':since': nowMs - idleMs,
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(out.Attributes?.count ?? calls);
    } catch (err) {
      if (isConditionFailed(err)) return undefined;
      throw err;
    }
  }

  /** Another request, or idle too long: the run starts again at `calls`; undefined when it is not that. */
  private async restart(
    key: LoopRunKey,
    calls: number,
    nowMs: number,
    idleMs: number,
  ): Promise<number | undefined> {
    try {
      await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: itemKeys.loopRun(key.orgId, key.keyId, key.run),
          UpdateExpression: 'SET fp = :fp, #count = :calls, lastTs = :now, expiresAt = :exp',
          ConditionExpression: 'attribute_not_exists(fp) OR fp <> :fp OR lastTs < :since',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: {
            ':fp': key.fingerprint,
            ':calls': calls,
            ':now': nowMs,
            ':exp': expiresAtOf(nowMs),
            ':since': nowMs - idleMs,
          },
        }),
      );
      return calls;
    } catch (err) {
      if (isConditionFailed(err)) return undefined;
      throw err;
    }
  }

  async reset(key: Omit<LoopRunKey, 'fingerprint'>, atLeast: number): Promise<void> {
    await this.table.doc
      .send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: itemKeys.loopRun(key.orgId, key.keyId, key.run),
          UpdateExpression: 'SET #count = :zero',
          ConditionExpression: '#count >= :min',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':zero': 0, ':min': atLeast },
        }),
      )
      .catch((err: unknown) => {
        if (!isConditionFailed(err)) throw err;
      });
  }

  async resetAll(orgId: string, keyId: string | null): Promise<void> {
    const { pk } = itemKeys.loopRun(orgId, '', '');
    const items = await queryAll(this.table, {
      KeyConditionExpression: keyId === null ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :key)',
      ExpressionAttributeValues: { ':pk': pk, ...(keyId === null ? {} : { ':key': `${keyId}#` }) },
      ProjectionExpression: 'pk, sk',
    });
    await Promise.all(
      items.map((item) =>
        this.table.doc.send(
          new UpdateCommand({
            TableName: this.table.tableName,
            Key: { pk: item.pk, sk: item.sk },
            UpdateExpression: 'SET #count = :zero',
            ExpressionAttributeNames: { '#count': 'count' },
            ExpressionAttributeValues: { ':zero': 0 },
          }),
        ),
      ),
    );
  }
}

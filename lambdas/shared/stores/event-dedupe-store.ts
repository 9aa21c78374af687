import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { itemKeys, padSeq } from '../item-keys';
import { type DynamoTable, isConditionFailed } from './dynamo';

/** Which consumer counts an event: each keeps its own claims (they read the stream independently). */
export type DedupeConsumer = 'ledger' | 'guardrails';

/**
 * How long an event id is remembered (issue 15.6: at least 24 h of retries). Twice that, so a client
 * retrying a day-old batch near the boundary is still recognized; DynamoDB's TTL deletes the claim
 * lazily afterwards, and a claim past `expiresAt` counts as absent.
 */
export const DEDUPE_TTL_SECONDS = 48 * 3600;

/** Claim writes in flight at once per record. */
const CLAIMS_IN_FLIGHT = 16;

/**
 * One claim per (organization, sending API key, event id, consumer), written before the event is
 * counted. The claim item is keyed by the event id (not its time), so a retried event counts once
 * whatever its timestamp (the ledger's sort key holds the receive time of events sent without one); and
 * by the sending key, so one key cannot suppress another integration's predictable ids (issue 21).
 */
export interface EventDedupeStore {
  /**
   * Claims the event ids for Kinesis record `seq` and returns those this record may count: ids never
   * seen (or whose claim expired), and ids this same record claimed before (a replay after a crash,
   * which must count them again to stay exactly-once with the sequence-guarded writes after it).
   * An id claimed by another record is left out. `keyId` is the public id of the key that sent them.
   */
  claim(
    orgId: string,
    consumer: DedupeConsumer,
    seq: string,
    eventIds: readonly string[],
    nowMs: number,
    keyId: string,
  ): Promise<Set<string>>;
}

export class DynamoEventDedupeStore implements EventDedupeStore {
  constructor(private readonly table: DynamoTable) {}

  async claim(
    orgId: string,
    consumer: DedupeConsumer,
    seq: string,
    eventIds: readonly string[],
    nowMs: number,
    keyId: string,
  ): Promise<Set<string>> {
    const padded = padSeq(seq);
    const nowSeconds = Math.floor(nowMs / 1000);
    const claimOne = async (eventId: string): Promise<string | undefined> => {
      try {
        await this.table.doc.send(
          new PutCommand({
            TableName: this.table.tableName,
            Item: {
              ...itemKeys.eventClaim(orgId, keyId, eventId, consumer),
              seq: padded,
              expiresAt: nowSeconds + DEDUPE_TTL_SECONDS,
            },
            ConditionExpression: 'attribute_not_exists(pk) OR seq = :seq OR expiresAt < :now',
            ExpressionAttributeValues: { ':seq': padded, ':now': nowSeconds },
          }),
        );
        return eventId;
      } catch (err) {
        if (isConditionFailed(err)) return undefined;
        throw err;
      }
    };
    // Conditional puts cannot be batched; a 100-event record sent as 100 parallel puts timed out on the
    // local stand-in (one shard held back ~20 s). A bounded number in flight costs AWS nothing noticeable.
    const ids = [...new Set(eventIds)];
    const claimed: Array<string | undefined> = [];
    for (let i = 0; i < ids.length; i += CLAIMS_IN_FLIGHT) {
      claimed.push(...(await Promise.all(ids.slice(i, i + CLAIMS_IN_FLIGHT).map(claimOne))));
    }
    return new Set(claimed.filter((id): id is string => id !== undefined));
  }
}

/**
 * Validation of what the SDK posts against the server's own wire schema (core/schemas): every batch
 * must parse, and no event may carry a field the schema does not know (it would be dropped silently).
 */
import { clientEventBatchSchema, clientEventSchema } from '../../../core/schemas';

const KNOWN_FIELDS = new Set(Object.keys(clientEventSchema.shape));

export function expectValidClientEvents(batches: readonly unknown[]): void {
  for (const batch of batches) {
    const parsed = clientEventBatchSchema.safeParse(batch);
    if (!parsed.success) throw new Error(`invalid batch: ${JSON.stringify(parsed.error.issues.slice(0, 5))}`);
    for (const event of (batch as { events: Array<Record<string, unknown>> }).events) {
      const unknown = Object.keys(event).filter((k) => !KNOWN_FIELDS.has(k));
      expect(unknown).toEqual([]);
    }
  }
}

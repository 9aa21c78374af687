import type { LedgerEntry } from '../../core/ledger/ledger-entry';

/** A guardrail trip as the export reports it (never a prompt, never a secret). */
export interface ExportedTrip {
  orgId: string;
  /** The layer that tripped (`financialLimits`, `loopDetection`…) and its trigger. */
  layer: string;
  triggerType: string;
  /** What the verdict stops: `session`, `key` or `organization`. */
  scope: string;
  /** The verdict's action (`BLOCK`, `THROTTLE`, `WARN`). */
  action: string;
  observedValue: number;
  thresholdValue: number;
  /** The verdict's message (policy figures, never a prompt). */
  message: string;
  keyId: string;
  sessionId: string | null;
  /** ms since the epoch. */
  at: number;
}

/**
 * Where the consumers hand what they recorded for export beyond Spendguard (OpenTelemetry today:
 * `otel/otel-ledger-export.ts`). Recording never throws and never waits; `flush` is awaited at the end
 * of each batch because Lambda freezes the process between invocations, so nothing may stay queued.
 */
export interface LedgerExport {
  /** The calls a record newly wrote to the ledger (a redelivered record writes none, so none twice). */
  calls(orgId: string, entries: readonly LedgerEntry[]): void;
  /** A guardrail trip. */
  trip(trip: ExportedTrip): void;
  /** Sends everything recorded so far; resolves (never rejects) once sent or given up. */
  flush(): Promise<void>;
  /** Flushes and releases the exporters (the local stack's stop). */
  shutdown(): Promise<void>;
}

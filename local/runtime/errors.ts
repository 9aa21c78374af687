/**
 * Errors raised by the local runtime. One base class, so a caller can tell "the laptop stack is
 * misconfigured" apart from errors of the code it drives; subclasses set `name` and keep `cause`.
 */

/** Base class of every error thrown by `local/runtime`. */
export class LocalRuntimeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LocalRuntimeError';
  }
}

/** Options that cannot be combined, or a value out of range. Thrown before anything is started. */
export class InvalidOptionsError extends LocalRuntimeError {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidOptionsError';
  }
}

/**
 * A table or stream already exists in the data dir with a shape that no longer matches
 * `lambdas/shared/table-definitions.ts` (dynalite cannot add an index to an existing table).
 */
export class ResourceDriftError extends LocalRuntimeError {
  constructor(message: string) {
    super(message);
    this.name = 'ResourceDriftError';
  }
}

/** A resource did not become ACTIVE in time. */
export class ProvisioningTimeoutError extends LocalRuntimeError {
  constructor(message: string) {
    super(message);
    this.name = 'ProvisioningTimeoutError';
  }
}

/**
 * The handler reported `batchItemFailures` (or an invalid one). Passed to `onDeadLetter` when the
 * retries of such a batch are exhausted, as the reason for the failure.
 */
export class BatchItemFailureError extends LocalRuntimeError {
  /** Sequence numbers the handler reported as failed (empty when the report itself was invalid). */
  readonly failedSequenceNumbers: readonly string[];

  constructor(message: string, failedSequenceNumbers: readonly string[]) {
    super(message);
    this.name = 'BatchItemFailureError';
    this.failedSequenceNumbers = failedSequenceNumbers;
  }
}

/** `drain()` could not finish because `stop()` was called first. */
export class PollerStoppedError extends LocalRuntimeError {
  constructor(message = 'The Kinesis poller was stopped before it reached the tip of the stream') {
    super(message);
    this.name = 'PollerStoppedError';
  }
}

/** A stand-in did not answer a request within the readiness bound (`waitForStandIns`). */
export class StandInsNotReadyError extends LocalRuntimeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StandInsNotReadyError';
  }
}

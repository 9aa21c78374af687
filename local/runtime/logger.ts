/**
 * The small logging surface the local runtime needs. The stand-ins run inside the developer's
 * process, so the runtime never writes to the console by itself unless given a logger; a Powertools
 * Logger satisfies this interface too.
 */

/** Where the runtime reports what it cannot throw (poller retries, dead letters, stray handler errors). */
export interface RuntimeLogger {
  info(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
}

/** Writes one line per entry to the console, prefixed so interleaved output stays readable. */
export function createConsoleLogger(prefix = 'spendguard-local'): RuntimeLogger {
  const line = (message: string, details?: Record<string, unknown>): string =>
    details === undefined ? `[${prefix}] ${message}` : `[${prefix}] ${message} ${JSON.stringify(details)}`;
  return {
    info: (message, details) => console.info(line(message, details)),
    warn: (message, details) => console.warn(line(message, details)),
    error: (message, details) => console.error(line(message, details)),
  };
}

/** Discards everything: for tests that assert on behaviour, not on log lines. */
export const silentLogger: RuntimeLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

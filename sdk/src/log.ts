/**
 * Debug logging: console output only when the caller set `debug: true`, always prefixed, never with
 * keys, prompts or completions (callers pass only counts, ids, statuses and error messages of our own).
 */
export interface Logger {
  readonly enabled: boolean;
  debug(message: string, detail?: unknown): void;
  warn(message: string, detail?: unknown): void;
}

const PREFIX = '[spendguard]';

/** A logger that writes only while `isEnabled()` returns true. */
export function createLogger(isEnabled: () => boolean): Logger {
  const write = (level: 'debug' | 'warn', message: string, detail: unknown): void => {
    try {
      if (!isEnabled()) return;
      const c = (globalThis as { console?: Console }).console;
      const fn = level === 'warn' ? c?.warn : c?.debug;
      if (typeof fn !== 'function') return;
      if (detail === undefined) fn.call(c, `${PREFIX} ${message}`);
      else fn.call(c, `${PREFIX} ${message}`, describe(detail));
    } catch {
      // logging must never fail the host
    }
  };
  return {
    get enabled() {
      try {
        return isEnabled();
      } catch {
        return false;
      }
    },
    debug: (message, detail) => write('debug', message, detail),
    warn: (message, detail) => write('warn', message, detail),
  };
}

/** An error's name and message only (no stack, no request data). */
export function describe(detail: unknown): string {
  if (detail instanceof Error) return `${detail.name}: ${detail.message}`;
  if (typeof detail === 'string') return detail;
  try {
    return JSON.stringify(detail) ?? String(detail);
  } catch {
    return String(detail);
  }
}

import type { ReactNode } from 'react';

import { ApiError } from '../api/client';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="status status-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

/** The API's `error.message`, with a Retry button when one is given. */
export function ErrorNotice({
  error,
  onRetry,
  title,
}: {
  error: Error;
  onRetry?: () => void;
  title?: string;
}) {
  const status = error instanceof ApiError && error.status > 0 ? ` (HTTP ${error.status})` : '';
  return (
    <div className="status status-error" role="alert">
      <p>
        <strong>{title ?? 'Something went wrong'}:</strong> {error.message}
        {status}
      </p>
      {onRetry && (
        <button type="button" className="btn btn-small" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="status status-empty">{children}</p>;
}

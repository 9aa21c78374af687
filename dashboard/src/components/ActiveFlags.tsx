import { useState } from 'react';

import { useApiClient } from '../api/context';
import type { KillFlag } from '../api/types';
import { FlagBanner } from '../pages/FlagBanner';
import { flagScopeOf, resumeRequest } from '../lib/resume';
import { activeFlags } from '../lib/spend';
import { useAsync } from '../lib/useAsync';
import { useNow } from '../lib/useNow';
import { ErrorNotice } from './Status';

/**
 * The organization's active kill flags, one banner each with its scope, and Resume, which clears
 * exactly that flag's scope (the session, the key, or the organization).
 */
export function ActiveFlags({ onResumed }: { onResumed?: () => void }) {
  const api = useApiClient();
  const flags = useAsync((signal) => api.getFlags(signal), [api]);
  const [resuming, setResuming] = useState(false);
  const [resumeError, setResumeError] = useState<Error | null>(null);
  // Banners disappear when their time is up; each banner ticks its own countdown.
  const now = useNow(30_000);
  const shown = activeFlags(flags.data ?? [], now);

  async function resume(flag: KillFlag) {
    setResuming(true);
    setResumeError(null);
    try {
      const ownKey = flagScopeOf(flag) !== 'organization' && flag.keyId;
      const keys = ownKey ? [] : await api.getKeys();
      await api.enforce(resumeRequest(flag, keys));
      flags.reload();
      onResumed?.();
    } catch (err) {
      setResumeError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setResuming(false);
    }
  }

  return (
    <div className="flags" aria-live="polite">
      {flags.status === 'error' && (
        <ErrorNotice title="Kill flags could not be loaded" error={flags.error} onRetry={flags.reload} />
      )}
      {resumeError && <ErrorNotice title="Resume failed" error={resumeError} />}
      {shown.map((flag, i) => (
        <FlagBanner
          key={`${flag.scope ?? ''}-${flag.keyId ?? ''}-${flag.sessionId ?? ''}-${flag.triggerType}-${flag.setAt}-${i}`}
          flag={flag}
          resuming={resuming}
          onResume={() => void resume(flag)}
          onExpired={flags.reload}
        />
      ))}
    </div>
  );
}

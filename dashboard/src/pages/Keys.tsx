import { useRef, useState, type FormEvent } from 'react';

import { ApiError } from '../api/client';
import { useApiClient } from '../api/context';
import { KEY_SCOPES, type ApiKey, type CreatedKey, type KeyScope } from '../api/types';
import { Card } from '../components/Card';
import { Empty, ErrorNotice, Loading } from '../components/Status';
import { formatDateTime } from '../lib/format';
import { useAsync } from '../lib/useAsync';

/** The secret of a just-created key: shown once, with a copy button. */
function NewKeySecret({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle');
  const inputRef = useRef<HTMLInputElement>(null);

  async function copy() {
    try {
      await navigator.clipboard.writeText(created.apiKey);
      setCopied('copied');
    } catch {
      // Clipboard API unavailable (http, permissions): select the text so Ctrl/Cmd+C works.
      inputRef.current?.select();
      setCopied('failed');
    }
  }

  return (
    <div className="secret-panel" role="region" aria-labelledby="new-key-title" data-testid="new-key">
      <h3 id="new-key-title">Key “{created.key.name}” created</h3>
      <p className="secret-warning">
        <strong>Copy this key now — you won’t see it again.</strong> Spendguard stores only a hash of it.
      </p>
      <div className="secret-row">
        <label htmlFor="new-key-value" className="sr-only">
          New API key
        </label>
        <input
          id="new-key-value"
          ref={inputRef}
          className="secret-value"
          readOnly
          value={created.apiKey}
          onFocus={(e) => e.target.select()}
          spellCheck={false}
        />
        <button
          type="button"
          className="btn btn-primary"
          onClick={() => void copy()}
          aria-label="Copy API key"
        >
          Copy
        </button>
      </div>
      <p role="status" className="small">
        {copied === 'copied'
          ? 'Copied to the clipboard.'
          : copied === 'failed'
            ? 'Copy failed: the key is selected, press Ctrl+C.'
            : ''}
      </p>
      <button type="button" className="btn" onClick={onDone}>
        I’ve saved it — hide the key
      </button>
    </div>
  );
}

/** What each scope lets a program do, for the creation form and the list. */
const SCOPE_INFO: Record<KeyScope, { label: string; help: string }> = {
  proxy: { label: 'Proxy', help: 'calls through the Spendguard proxy' },
  ingest: { label: 'Ingest', help: 'send telemetry (SDK, POST /api/ingest) and take budget leases' },
  read: { label: 'Read', help: 'read the ledger, spend, forecast and budget with the key' },
};

function KeyRow({ apiKey, onRevoked }: { apiKey: ApiKey; onRevoked: () => void }) {
  const api = useApiClient();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const revoked = apiKey.revokedAt !== null;

  async function revoke() {
    setBusy(true);
    setError(null);
    try {
      await api.revokeKey(apiKey.publicId);
      setConfirming(false);
      onRevoked();
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setBusy(false);
    }
  }

  return (
    <tr data-testid="key-row" className={revoked ? 'row-muted' : undefined}>
      <td className="key-name">{apiKey.name || <span className="muted">(unnamed)</span>}</td>
      <td data-label="Prefix">
        <code>{apiKey.prefix}…</code>
      </td>
      <td data-label="Scopes" data-testid="key-scopes">
        {apiKey.scopes.map((s) => (
          <span key={s} className="badge badge-muted scope-badge" title={SCOPE_INFO[s].help}>
            {SCOPE_INFO[s].label}
          </span>
        ))}
      </td>
      <td className="nowrap" data-label="Created">
        {formatDateTime(apiKey.createdAt)}
      </td>
      <td data-label="Status">
        {revoked ? (
          <span className="badge badge-muted">Revoked {formatDateTime(apiKey.revokedAt)}</span>
        ) : (
          <span className="badge badge-ok">Active</span>
        )}
      </td>
      <td className="actions">
        {!revoked && !confirming && (
          <button
            type="button"
            className="btn btn-small btn-danger-outline"
            onClick={() => setConfirming(true)}
            aria-label={`Revoke key ${apiKey.name || apiKey.prefix}`}
          >
            Revoke
          </button>
        )}
        {confirming && (
          <div className="confirm" role="group" aria-label={`Confirm revoking ${apiKey.prefix}`}>
            <span className="small">Programs using this key will get 401. Revoke?</span>
            <button
              type="button"
              className="btn btn-small btn-danger"
              onClick={() => void revoke()}
              disabled={busy}
            >
              {busy ? 'Revoking…' : 'Yes, revoke'}
            </button>
            <button
              type="button"
              className="btn btn-small"
              onClick={() => setConfirming(false)}
              disabled={busy}
            >
              Cancel
            </button>
          </div>
        )}
        {error && <ErrorNotice title="Revoke failed" error={error} />}
      </td>
    </tr>
  );
}

export function Keys() {
  const api = useApiClient();
  const keys = useAsync((signal) => api.getKeys(signal), [api]);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ReadonlySet<KeyScope>>(() => new Set(KEY_SCOPES));
  const [creating, setCreating] = useState(false);
  const [createError, setCreateError] = useState<Error | null>(null);
  const [created, setCreated] = useState<CreatedKey | null>(null);

  async function create(e: FormEvent) {
    e.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) {
      setCreateError(new Error('Give the key a name, e.g. the service that will use it'));
      return;
    }
    if (scopes.size === 0) {
      setCreateError(new Error('Choose at least one scope: what will the program do with this key?'));
      return;
    }
    setCreating(true);
    setCreateError(null);
    try {
      // Every scope: the API's default, sent without a list (as keys were created before scopes).
      const chosen = KEY_SCOPES.filter((s) => scopes.has(s));
      setCreated(await api.createKey(trimmed, chosen.length === KEY_SCOPES.length ? undefined : chosen));
      setName('');
      setScopes(new Set(KEY_SCOPES));
      keys.reload();
    } catch (err) {
      const problems =
        err instanceof ApiError && err.problems.length
          ? ` (${err.problems.map((p) => p.message).join('; ')})`
          : '';
      setCreateError(new Error(`${err instanceof Error ? err.message : String(err)}${problems}`));
    } finally {
      setCreating(false);
    }
  }

  const sorted = [...(keys.data ?? [])].sort(
    (a, b) =>
      Number(a.revokedAt !== null) - Number(b.revokedAt !== null) || b.createdAt.localeCompare(a.createdAt),
  );

  return (
    <div className="page">
      <h1>API keys</h1>
      <p className="muted">
        Programs authenticate with a key: the SDK’s <code>apiKey</code>, the proxy’s{' '}
        <code>Service-API-Key</code> header, or <code>apiKey</code> in <code>POST /api/ingest</code>.
      </p>

      <Card title="Create a key">
        {created ? (
          <NewKeySecret created={created} onDone={() => setCreated(null)} />
        ) : (
          <form className="inline-form" onSubmit={create} noValidate>
            <div className="field">
              <label htmlFor="key-name">Key name</label>
              <input
                id="key-name"
                type="text"
                value={name}
                maxLength={100}
                placeholder="e.g. billing-agent production"
                autoComplete="off"
                aria-invalid={createError ? true : undefined}
                onChange={(e) => setName(e.target.value)}
              />
            </div>
            <fieldset className="field scope-choice">
              <legend>Scopes</legend>
              {KEY_SCOPES.map((s) => (
                <div className="field-check" key={s}>
                  <input
                    id={`key-scope-${s}`}
                    type="checkbox"
                    checked={scopes.has(s)}
                    onChange={(e) =>
                      setScopes((prev) => {
                        const next = new Set(prev);
                        if (e.target.checked) next.add(s);
                        else next.delete(s);
                        return next;
                      })
                    }
                  />
                  <label htmlFor={`key-scope-${s}`}>
                    {SCOPE_INFO[s].label} <span className="muted small">— {SCOPE_INFO[s].help}</span>
                  </label>
                </div>
              ))}
              <p className="muted small">
                A key embedded in a browser or shipped to customers should carry only what it needs, e.g.
                Proxy alone.
              </p>
            </fieldset>
            <button type="submit" className="btn btn-primary" disabled={creating}>
              {creating ? 'Creating…' : 'Create key'}
            </button>
          </form>
        )}
        {createError && <ErrorNotice title="The key was not created" error={createError} />}
      </Card>

      <Card title="Keys">
        {keys.status === 'error' ? (
          <ErrorNotice error={keys.error} onRetry={keys.reload} />
        ) : keys.status === 'loading' && !keys.data ? (
          <Loading label="Loading keys…" />
        ) : sorted.length === 0 ? (
          <Empty>No API keys yet. Create one above to start sending telemetry.</Empty>
        ) : (
          <div className="table-wrap">
            <table className="table keys-table">
              <caption className="sr-only">API keys of this organization</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Prefix</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Created</th>
                  <th scope="col">Status</th>
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {sorted.map((k) => (
                  <KeyRow key={k.publicId} apiKey={k} onRevoked={keys.reload} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
    </div>
  );
}

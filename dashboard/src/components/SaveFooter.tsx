import type { Problem } from '../api/types';
import { ErrorNotice } from './Status';

/** The end of an editing form: why the last save failed, problems not tied to a field, and the save button. */
export function SaveFooter({
  noun,
  saving,
  saved,
  saveError,
  problems,
}: {
  /** What the form saves, e.g. "budget": "Save budget", "Budget saved.". */
  noun: string;
  saving: boolean;
  saved: boolean;
  saveError: Error | null;
  problems: Problem[];
}) {
  return (
    <>
      {saveError && <ErrorNotice title={`The ${noun} was not saved`} error={saveError} />}
      {problems.length > 0 && (
        <ul className="problems" aria-label="Problems">
          {problems.map((p) => (
            <li key={`${p.path}-${p.message}`}>
              <code>{p.path}</code>: {p.message}
            </li>
          ))}
        </ul>
      )}
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={saving}>
          {saving ? 'Saving…' : `Save ${noun}`}
        </button>
        {saved && (
          <span role="status" className="saved">
            {noun[0]!.toUpperCase() + noun.slice(1)} saved.
          </span>
        )}
      </div>
    </>
  );
}

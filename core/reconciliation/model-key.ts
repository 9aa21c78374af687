/**
 * The key that lines a provider's report up with the ledger: reports name dated snapshots
 * (`gpt-4o-mini-2024-07-18`, `claude-sonnet-4-20250514`) where a call may have recorded the alias, so the
 * comparison is per model family name: lower-cased, trimmed, a trailing date removed. Vendor prefixes
 * (`openai/gpt-4o` on OpenRouter) are kept: they name what was billed.
 */
const TRAILING_DATE_RE = /-(?:20\d{2}-\d{2}-\d{2}|20\d{6})$/;

export function reconciliationModelKey(model: string): string {
  return model.trim().toLowerCase().replace(TRAILING_DATE_RE, '');
}

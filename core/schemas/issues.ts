/**
 * Validation errors as the API returns them in 400 bodies: what is wrong and where.
 * @module
 */
import type { z } from 'zod';

/** One problem: `path` like `events[3].usage.prompt_tokens` ('' for the body itself). */
export interface FieldIssue {
  path: string;
  message: string;
}

/** At most this many issues are listed; the rest are summarized in one last entry. */
export const MAX_REPORTED_ISSUES = 50;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Formats a path as code would write it: `events[3].usage.prompt_tokens`; keys that are not
 * identifiers are quoted (`metadata["x-y"]`); the root is ''.
 */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (typeof seg === 'symbol') out += `[${String(seg)}]`;
    else if (IDENTIFIER.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/**
 * The issues of a failed parse, one entry per problem: an unknown member is reported at its own
 * path, a missing one as `required`. Messages never include the rejected values.
 *
 * @example
 * formatZodIssues(ingestRequestSchema.safeParse({ apiKey: 'abn_x', events: [{ model: 'm', usage: {} }] }).error!)
 * // [{ path: 'events[0].usage.prompt_tokens', message: 'required (expected a whole number of tokens)' }, …]
 */
export function formatZodIssues(error: z.ZodError): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        out.push({ path: formatIssuePath([...issue.path, key]), message: 'unknown field' });
    } else if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) {
      const expected = issue.message.replace(/^Invalid input: /, '').replace(/, received undefined$/, '');
      out.push({ path: formatIssuePath(issue.path), message: `required (${expected})` });
    } else {
      out.push({ path: formatIssuePath(issue.path), message: issue.message });
    }
  }
  if (out.length <= MAX_REPORTED_ISSUES) return out;
  const shown = out.slice(0, MAX_REPORTED_ISSUES - 1);
  shown.push({ path: '', message: `and ${out.length - shown.length} more issues` });
  return shown;
}

/**
 * One GET of a provider's admin report, parsed with its zod schema. Errors name the provider, the path
 * and the status, never the credential or the query (which carries no secret either, but stays short).
 */
import type { z } from 'zod';

export type FetchFn = typeof fetch;

/** A report that could not be read: an HTTP status, a transport failure, or a body of another shape. */
export class ProviderReportError extends Error {
  override readonly name = 'ProviderReportError';
}

/** @default 20 s: a report page is small; a stuck provider must not hold the run (or the API call). */
export const REPORT_TIMEOUT_MS = 20_000;

export async function getReport<T>(
  fetchFn: FetchFn,
  url: URL,
  headers: Record<string, string>,
  schema: z.ZodType<T>,
  what: string,
): Promise<T> {
  let res: Response;
  try {
    res = await fetchFn(url, {
      method: 'GET',
      headers: { accept: 'application/json', ...headers },
      // Never follow a redirect: a cross-origin one drops Authorization but would carry Anthropic's
      // x-api-key (an admin key) to whatever host the redirect names (issue 21).
      redirect: 'error',
      signal: AbortSignal.timeout(REPORT_TIMEOUT_MS),
    });
  } catch (err) {
    throw new ProviderReportError(`${what}: request failed (${err instanceof Error ? err.name : 'error'})`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new ProviderReportError(`${what}: ${url.pathname} answered ${res.status}`);
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw new ProviderReportError(`${what}: ${url.pathname} answered a body that is not JSON`);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ProviderReportError(
      `${what}: unexpected report format at ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
    );
  }
  return parsed.data;
}

/** Most pages a paged report is followed for (a loop guard: 31 one-day buckets need 31 at limit 1). */
export const MAX_REPORT_PAGES = 100;

/**
 * Follows `next_page` while `has_more`: OpenAI and Anthropic page their reports the same way.
 * @param fetchPage reads one page; `page` is undefined for the first
 */
/** What OpenAI's and Anthropic's report pages share. */
export interface ReportPage {
  has_more: boolean;
  next_page?: string | null;
}

export async function allPages<P extends ReportPage>(
  fetchPage: (page: string | undefined) => Promise<P>,
  what: string,
): Promise<P[]> {
  const pages: P[] = [];
  let page: string | undefined;
  for (let i = 0; i < MAX_REPORT_PAGES; i++) {
    const p = await fetchPage(page);
    pages.push(p);
    if (!p.has_more) return pages;
    if (!p.next_page) throw new ProviderReportError(`${what}: has_more without next_page`);
    page = p.next_page;
  }
  throw new ProviderReportError(`${what}: more than ${MAX_REPORT_PAGES} pages`);
}

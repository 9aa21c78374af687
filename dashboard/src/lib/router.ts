import { useSyncExternalStore } from 'react';

/** The pages, in navigation order; the hash route is `#/<id>`. */
export const ROUTES = [
  { id: 'overview', title: 'Overview' },
  { id: 'ledger', title: 'Ledger' },
  { id: 'guardrails', title: 'Guardrails' },
  { id: 'sessions', title: 'Sessions' },
  { id: 'budgets', title: 'Budgets' },
  { id: 'keys', title: 'API keys' },
  { id: 'accuracy', title: 'Accuracy' },
  { id: 'audit', title: 'Audit' },
] as const;

export type RouteId = (typeof ROUTES)[number]['id'];

export function routeFromHash(hash: string): RouteId {
  const id = hash.replace(/^#\/?/, '').split(/[/?]/)[0] ?? '';
  return ROUTES.find((r) => r.id === id)?.id ?? 'overview';
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

/** The current page, from `location.hash` (a hash router works from any path, S3 included). */
export function useRoute(): RouteId {
  return useSyncExternalStore(subscribe, () => routeFromHash(window.location.hash));
}

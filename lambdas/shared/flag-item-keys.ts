/**
 * The item layout of the Flags table (docs/data-model.md): every flag item of one API key starts with
 * the key's opaque flag key (core/keys `flagKeyFor`, the HMAC of its prefix), so the edge can find all
 * of them from the key a request presents, in one BatchGetItem, without ever seeing the raw key:
 *
 * - `<flagKey>`                      key scope (layer 4 by default; manual pushes for one key);
 * - `<flagKey>#org`                  organization scope, one copy per key of the organization;
 * - `<flagKey>#s#<sessionDigest>`    session scope, one agent session of that key.
 *
 * Built only here, so the guard, the stores and the enforcement code cannot disagree on it.
 */
import { createHash } from 'node:crypto';
import type { VerdictScope } from '../../core/guardrails/types';

/** Longest session id kept; the relay truncates the session header to the same length for its events. */
export const MAX_SESSION_ID_LENGTH = 256;

const ORG_SUFFIX = '#org';
const SESSION_INFIX = '#s#';

/**
 * The session a request names: the `x-spendguard-session` header (first value), truncated as the relay
 * truncates it, or undefined when absent or empty (the request then belongs to no session).
 */
export function sessionOfHeader(value: string | readonly string[] | undefined): string | undefined {
  const v = typeof value === 'string' ? value : value?.[0];
  if (v === undefined || v.length === 0) return undefined;
  return v.length > MAX_SESSION_ID_LENGTH ? v.slice(0, MAX_SESSION_ID_LENGTH) : v;
}

/** 128 bits of SHA-256 of the session id: bounded item keys whatever the caller named its session. */
export function sessionDigest(sessionId: string): string {
  return createHash('sha256').update(sessionId, 'utf8').digest('hex').slice(0, 32);
}

/** The organization-scope item of one key. */
export function orgFlagItemKey(flagKey: string): string {
  return flagKey + ORG_SUFFIX;
}

/** The session-scope item of one key's session. */
export function sessionFlagItemKey(flagKey: string, sessionId: string): string {
  return flagKey + SESSION_INFIX + sessionDigest(sessionId);
}

/** The item holding a flag of `scope` for the key whose flag key is `flagKey`. */
export function flagItemKey(flagKey: string, scope: VerdictScope, sessionId: string | null): string {
  if (scope === 'organization') return orgFlagItemKey(flagKey);
  if (scope === 'session' && sessionId !== null) return sessionFlagItemKey(flagKey, sessionId);
  return flagKey;
}

/**
 * Every item the guard reads for a request of this key (and session): key, organization, and the
 * session's item when the request names one. One BatchGetItem.
 */
export function guardItemKeys(flagKey: string, sessionId: string | undefined): string[] {
  return sessionId === undefined
    ? [flagKey, orgFlagItemKey(flagKey)]
    : [flagKey, orgFlagItemKey(flagKey), sessionFlagItemKey(flagKey, sessionId)];
}

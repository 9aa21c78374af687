/**
 * The organizations' guardrail policies as the relay reads them (issue 19.6): the pipeline's own source
 * (the config item the API writes, merged by core/guardrails `effectivePolicy`), cached per container so
 * that the call path never waits on the store once an organization has been seen.
 *
 * A policy younger than `ttlMs` (1 s, the guard's flag cache) is used as is; an older one is still used
 * while one background read refreshes it (a change reaches a warm container within about `ttlMs` plus one
 * read). Only an organization's first call in a container waits, at most `timeoutMs`. A failed or slow
 * read yields the last known policy, or none (the caller fails open, design decision 6), and is not
 * retried for `ttlMs`.
 */
import { effectivePolicy, type BudgetCaps } from '../../core/guardrails/org-policy';
import type { GuardrailPolicy } from '../../core/guardrails/policy';
import type { OrgConfigStore } from '../shared/stores/org-config-store';

export const POLICY_CACHE_TTL_MS = 1_000;
const DEFAULT_TIMEOUT_MS = 1_000;
const DEFAULT_MAX_ORGS = 10_000;

interface Entry {
  /** Undefined: the read failed and nothing was known before. */
  readonly policy: GuardrailPolicy | undefined;
  readonly at: number;
}

/** Reads an organization's effective policy (the relay's in-line loop check takes this). */
export interface OrgPolicySource {
  policyOf(orgId: string): GuardrailPolicy | undefined | Promise<GuardrailPolicy | undefined>;
}

export interface OrgPolicyCacheOptions {
  readonly config: Pick<OrgConfigStore, 'get'>;
  readonly now?: () => number;
  readonly ttlMs?: number;
  /** A first read slower than this answers none (fail open). @default 1000 */
  readonly timeoutMs?: number;
  /** Organizations kept (least recently refreshed evicted first). @default 10000 */
  readonly maxOrgs?: number;
}

export class OrgPolicyCache implements OrgPolicySource {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<GuardrailPolicy | undefined>>();
  private readonly now: () => number;
  private readonly ttlMs: number;
  private readonly timeoutMs: number;
  private readonly maxOrgs: number;

  constructor(private readonly opts: OrgPolicyCacheOptions) {
    this.now = opts.now ?? Date.now;
    this.ttlMs = opts.ttlMs ?? POLICY_CACHE_TTL_MS;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxOrgs = opts.maxOrgs ?? DEFAULT_MAX_ORGS;
  }

  /**
   * The organization's policy: synchronously when it is cached (fresh or stale; a stale one starts a
   * refresh), else after the first read. Never rejects.
   */
  policyOf(orgId: string): GuardrailPolicy | undefined | Promise<GuardrailPolicy | undefined> {
    const hit = this.entries.get(orgId);
    const now = this.now();
    if (hit !== undefined) {
      if (now - hit.at >= this.ttlMs || now < hit.at) void this.refresh(orgId);
      return hit.policy;
    }
    return this.firstRead(orgId);
  }

  private async firstRead(orgId: string): Promise<GuardrailPolicy | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.timeoutMs);
      timer.unref?.();
    });
    try {
      return await Promise.race([this.refresh(orgId), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** One read per organization at a time; its answer (or the last known policy on failure) is cached. */
  private refresh(orgId: string): Promise<GuardrailPolicy | undefined> {
    const inflight = this.pending.get(orgId);
    if (inflight !== undefined) return inflight;
    const p = this.opts.config.get(orgId).then(
      (config) => effectivePolicy(config?.policy, config?.budget as BudgetCaps | undefined),
      () => this.entries.get(orgId)?.policy,
    );
    const done = p
      .then(
        (policy) => {
          this.set(orgId, policy);
          return policy;
        },
        () => undefined,
      )
      .finally(() => this.pending.delete(orgId));
    this.pending.set(orgId, done);
    return done;
  }

  private set(orgId: string, policy: GuardrailPolicy | undefined): void {
    this.entries.delete(orgId);
    if (this.entries.size >= this.maxOrgs) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(orgId, { policy, at: this.now() });
  }
}

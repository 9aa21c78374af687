/** Field schemas shared by the layers' policy sections. */
import { z } from 'zod';

/** `hard_stop` → SUSPENDED flag, `throttle` → THROTTLED flag, `alert` → warning only. */
export const guardrailModeSchema = z.enum(['hard_stop', 'throttle', 'alert']);

/** An integer amount of nano-USD (1 USD = 1e9), exact up to 2^53 − 1. */
export const nanosSchema = z.int().min(0);

/** A duration in ms, up to 31 days. */
export const durationMsSchema = z
  .int()
  .min(0)
  .max(31 * 86_400_000);

/**
 * What a layer's flag stops (design decision 13): the whole organization, the API key that sent the
 * events, or that key's agent session. A session-scope verdict whose events named no session degrades
 * to key scope.
 */
export const guardrailScopeSchema = z.enum(['organization', 'key', 'session']);

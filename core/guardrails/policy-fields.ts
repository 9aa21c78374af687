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

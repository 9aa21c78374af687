/**
 * The policy's `limits` section: bounds of the state and of event time that every layer reads, so it
 * lives apart from the policy assembled from the layers (a layer depends on it, never on the whole policy).
 */
import { z } from 'zod';

/** Bounds of the state and of event time, shared by the layers. */
export const stateLimitsPolicySchema = z.object({
  /** Session streams tracked per organization by layers 2 and 3 (LRU by last call). */
  maxSessions: z.int().min(1).max(1024).default(128),
  /** API keys tracked per organization by layer 4 (LRU by last request). */
  maxKeys: z.int().min(1).max(1024).default(64),
  /** Event times more than this ahead of `now` are clamped to `now + maxClockSkewMs`. */
  maxClockSkewMs: z.int().min(0).max(86_400_000).default(300_000),
});
export type StateLimitsPolicy = z.infer<typeof stateLimitsPolicySchema>;

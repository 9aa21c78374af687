import { httpErrors } from '../shared/http';

/**
 * Attempts at a read-modify-write under a revision before a 409: each lost race means another writer's
 * change landed in between.
 */
export const WRITE_ATTEMPTS = 10;

/** A jittered pause before attempt `attempt + 1` (5–30 ms, growing), so that writers that collided spread out. */
function conflictPause(attempt: number): Promise<void> {
  const pauseMs = Math.min(30, 5 * attempt) * (0.5 + Math.random() / 2);
  return new Promise((resolve) => setTimeout(resolve, pauseMs));
}

/**
 * Runs `attempt` (which reads, changes and writes under the revision it read) until it lands. A
 * conflict (`isConflict`) redoes the whole attempt on what the other writer stored; after
 * {@link WRITE_ATTEMPTS} lost races the request answers 409 with `conflictMessage`. Any other error
 * passes through at once.
 */
export async function retryOnConflict<T>(
  attempt: () => Promise<T>,
  isConflict: (err: unknown) => boolean,
  conflictMessage: string,
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!isConflict(err)) throw err;
      if (n === WRITE_ATTEMPTS) throw httpErrors.conflict(conflictMessage);
      await conflictPause(n);
    }
  }
}

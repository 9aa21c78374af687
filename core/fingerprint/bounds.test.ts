import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { FINGERPRINT_BOUNDS } from './bounds';
import { canonicalRequest } from './canonical-request';
import { fingerprintOf, fingerprintRequest, fingerprintRequestBounded } from './fingerprint';

const sha = (b: Buffer | string): string => 'sha256:' + createHash('sha256').update(b).digest('hex');

/** One object of `n` keys written in descending order: the insertion sort's worst case. */
function reverseKeys(n: number): string {
  const members: string[] = [];
  for (let i = n; i > 0; i--) members.push(`"k${String(i).padStart(8, '0')}":${i}`);
  return `{"model":"gpt-4o","messages":[{"role":"user","content":{${members.join(',')}}}]}`;
}

function elapsedMs(fn: () => unknown): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

describe('fingerprint bounds (issue 15.1)', () => {
  it('sorts many reverse-ordered keys in O(n log n): 20,000 keys (within the bounds) in well under a second', () => {
    const body = Buffer.from(reverseKeys(20_000));
    let result: ReturnType<typeof fingerprintRequestBounded> = null;
    // The quadratic sort took seconds here; O(n log n) takes milliseconds (generous for a loaded CI box).
    expect(elapsedMs(() => (result = fingerprintRequestBounded('openai', body)))).toBeLessThan(500);
    expect(result).toEqual({ kind: 'canonical', fingerprint: expect.stringMatching(/^sha256:/) });
    // Same canonical form as the keys written in order.
    const parsed = JSON.parse(body.toString()) as { messages: Array<{ content: Record<string, number> }> };
    const content = parsed.messages[0]!.content;
    const sorted = Object.fromEntries(
      Object.keys(content)
        .sort()
        .map((k) => [k, content[k]]),
    );
    expect(result!.fingerprint).toBe(
      fingerprintRequest('openai', { model: 'gpt-4o', messages: [{ role: 'user', content: sorted }] }),
    );
  });

  it('falls back to the raw-bytes hash, flagged, past the value bound (60,000 keys: 9.7 s before the fix)', () => {
    const body = Buffer.from(reverseKeys(60_000));
    let result: ReturnType<typeof fingerprintRequestBounded> = null;
    // Generous (the quadratic sort took 9.7 s here; 2 s seen on a machine at load 15): "no stall", not a benchmark.
    expect(elapsedMs(() => (result = fingerprintRequestBounded('openai', body)))).toBeLessThan(4000);
    expect(result).toEqual({ kind: 'raw', fingerprint: sha(body) });
    expect(canonicalRequest('openai', body)).toBeNull();
  });

  it('falls back to the raw-bytes hash past the byte bound (a 6 MB body), without scanning it', () => {
    const filler = 'x'.repeat(6 * 1024 * 1024);
    const text = `{"model":"gpt-4o","messages":[{"role":"user","content":"${filler}"}]}`;
    const bytes = Buffer.from(text);
    expect(bytes.byteLength).toBeGreaterThan(FINGERPRINT_BOUNDS.maxBytes);
    expect(fingerprintRequestBounded('openai', bytes)).toEqual({ kind: 'raw', fingerprint: sha(bytes) });
    expect(fingerprintRequestBounded('openai', text)).toEqual({ kind: 'raw', fingerprint: sha(bytes) });
    // Not even JSON: over the byte bound nothing is read, so the fallback still applies.
    const broken = Buffer.concat([bytes, Buffer.from('}}}')]);
    expect(fingerprintRequestBounded('openai', broken)?.kind).toBe('raw');
  });

  it('falls back past the depth bound, and stays canonical at it', () => {
    const nested = (n: number): string => `{"model":"m","messages":${'['.repeat(n - 1)}${']'.repeat(n - 1)}}`;
    const atBound = nested(FINGERPRINT_BOUNDS.maxDepth);
    const over = nested(FINGERPRINT_BOUNDS.maxDepth + 1);
    expect(fingerprintRequestBounded('openai', atBound)).toEqual({
      kind: 'canonical',
      fingerprint: fingerprintOf(canonicalRequest('openai', atBound)!),
    });
    expect(fingerprintRequestBounded('openai', Buffer.from(over))).toEqual({
      kind: 'raw',
      fingerprint: sha(over),
    });
  });

  it('counts every value against the value bound: exactly at it is canonical, one more is raw', () => {
    // Members and elements: model (1) + messages (1) + its n elements.
    const body = (n: number): string =>
      `{"model":"m","messages":[${Array.from({ length: n }, () => '1').join(',')}]}`;
    const fits = body(FINGERPRINT_BOUNDS.maxValues - 2);
    const over = body(FINGERPRINT_BOUNDS.maxValues - 1);
    expect(fingerprintRequestBounded('openai', fits)?.kind).toBe('canonical');
    expect(fingerprintRequestBounded('openai', over)).toEqual({ kind: 'raw', fingerprint: sha(over) });
  });

  it('within the bounds, is the canonical fingerprint whatever the form (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.jsonValue() }), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.string(),
        (messages, model) => {
          const value = { model, messages, temperature: 0.5 };
          const text = JSON.stringify(value, null, 1);
          const expected = canonicalRequest('openai', value);
          const got = fingerprintRequestBounded('openai', Buffer.from(text));
          expect(got).toEqual({ kind: 'canonical', fingerprint: fingerprintOf(expected!) });
          expect(fingerprintRequestBounded('openai', text)).toEqual(got);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('an unknown flavor is unusable even over the bounds', () => {
    expect(
      fingerprintRequestBounded('nope' as 'openai', 'x'.repeat(FINGERPRINT_BOUNDS.maxBytes + 1)),
    ).toBeNull();
  });
});

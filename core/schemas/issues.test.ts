import { z } from 'zod';
import { MAX_REPORTED_ISSUES, formatIssuePath, formatZodIssues } from './issues';

describe('formatIssuePath', () => {
  it.each<[PropertyKey[], string]>([
    [[], ''],
    [['events', 3, 'usage', 'prompt_tokens'], 'events[3].usage.prompt_tokens'],
    [[0, 'a'], '[0].a'],
    [['metadata', 'x-y'], 'metadata["x-y"]'],
    [['a', ''], 'a[""]'],
    [['a', 'b"c'], 'a["b\\"c"]'],
  ])('%j → %s', (path, expected) => {
    expect(formatIssuePath(path)).toBe(expected);
  });
});

describe('formatZodIssues', () => {
  const schema = z.strictObject({ a: z.number(), b: z.array(z.strictObject({ c: z.string() })) });

  it('reports missing members as required and unknown members one by one', () => {
    const r = schema.safeParse({ b: [{ c: 'x', d: 1, 'e f': 2 }], z: 0 });
    expect(r.success ? [] : formatZodIssues(r.error)).toEqual([
      { path: 'a', message: 'required (expected number)' },
      { path: 'b[0].d', message: 'unknown field' },
      { path: 'b[0]["e f"]', message: 'unknown field' },
      { path: 'z', message: 'unknown field' },
    ]);
  });

  it('never echoes the rejected value', () => {
    const r = z.object({ k: z.string().max(3) }).safeParse({ k: 'topsecretvalue' });
    expect(JSON.stringify(r.success ? [] : formatZodIssues(r.error))).not.toContain('topsecret');
  });

  it(`lists at most ${MAX_REPORTED_ISSUES} issues`, () => {
    const r = z.array(z.number()).safeParse(Array.from({ length: 80 }, () => 'x'));
    const issues = r.success ? [] : formatZodIssues(r.error);
    expect(issues).toHaveLength(MAX_REPORTED_ISSUES);
    expect(issues[MAX_REPORTED_ISSUES - 1]).toEqual({ path: '', message: 'and 31 more issues' });
  });
});

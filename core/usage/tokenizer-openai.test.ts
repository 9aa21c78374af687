import { countOpenAITokens } from './tokenizer-openai';

describe('countOpenAITokens (o200k_base)', () => {
  it('counts tokens exactly', () => {
    expect(countOpenAITokens('hello world')).toBe(2);
    expect(countOpenAITokens('')).toBe(0);
  });

  it('counts special-token text as ordinary text instead of throwing', () => {
    expect(countOpenAITokens('<|endoftext|>')).toBeGreaterThan(1);
  });
});

import { describe, expect, it } from 'vitest';

import { csvField, toCsv } from './csv';

describe('CSV', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\rhere', '"cr\rhere"'],
    [42, '42'],
    [0.000123, '0.000123'],
    [true, 'true'],
    [null, ''],
    [undefined, ''],
    ['=1+2', "'=1+2"],
    ['@SUM(A1)', "'@SUM(A1)"],
  ])('field %j → %j', (value, expected) => expect(csvField(value)).toBe(expected));

  it('joins rows with CRLF and ends with one', () => {
    expect(toCsv(['a', 'b'], [[1, 'x,y']])).toBe('a,b\r\n1,"x,y"\r\n');
  });
});

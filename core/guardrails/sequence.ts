/**
 * Kinesis sequence numbers are decimal strings of up to 128 digits: too long for a double,
 * and string order is not numeric order ("9" > "10"). Compare length first, then text.
 */

/** Kinesis sequence numbers have up to 128 digits; 4 more for `eventSequenceNumber`'s suffix. */
export const MAX_SEQUENCE_DIGITS = 132;

/** Whether `value` is a well-formed sequence number (1–132 decimal digits). */
export function isSequenceNumber(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_SEQUENCE_DIGITS) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function stripLeadingZeros(seq: string): string {
  let i = 0;
  while (i < seq.length - 1 && seq.charCodeAt(i) === 48) i++;
  return i === 0 ? seq : seq.slice(i);
}

/**
 * Numeric comparison of two sequence numbers: negative, 0 or positive.
 *
 * @example compareSequenceNumbers('9', '10') < 0 // true, unlike '9' < '10'
 */
export function compareSequenceNumbers(a: string, b: string): number {
  const x = a.charCodeAt(0) === 48 ? stripLeadingZeros(a) : a;
  const y = b.charCodeAt(0) === 48 ? stripLeadingZeros(b) : b;
  if (x.length !== y.length) return x.length - y.length;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Events one Kinesis record may carry and still get distinct, ordered sequence numbers. */
export const MAX_EVENTS_PER_RECORD = 10_000;

/**
 * The sequence number of the `index`-th event of a Kinesis record that carries several events
 * (an ingest batch): the record's sequence number followed by the index on 4 digits. Every
 * event gets the same suffix width, so numeric order is record order, then index order.
 *
 * @example eventSequenceNumber('4960', 2) === '49600002'
 */
export function eventSequenceNumber(recordSeq: string, index: number): string {
  if (!Number.isInteger(index) || index < 0 || index >= MAX_EVENTS_PER_RECORD) {
    throw new RangeError(`event index ${index} outside 0..${MAX_EVENTS_PER_RECORD - 1}`);
  }
  return recordSeq + String(index).padStart(4, '0');
}

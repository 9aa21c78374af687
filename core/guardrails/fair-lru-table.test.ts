import fc from 'fast-check';
import { emptyTable, indexOfId, putEntryFair, type BoundedTable } from './bounded-table';
import { FairLruTable } from './fair-lru-table';

describe('FairLruTable', () => {
  it('property: keeps exactly the ids the stored tables’ fair eviction (putEntryFair) keeps', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 24 }), { maxLength: 120 }),
        (capacity, ids) => {
          const owner = (id: number) => id % 4; // owner 0 floods with ids 0, 4, 8, …
          const table = new FairLruTable<number>(capacity);
          let reference: BoundedTable<readonly [seen: number, owner: number]> = emptyTable();
          ids.forEach((id, t) => {
            table.set(id, owner(id), t);
            reference = putEntryFair(
              reference,
              indexOfId(reference, id),
              id,
              [t, owner(id)] as const,
              capacity,
              (e) => e[0],
              (e) => e[1],
            );
            expect(table.size).toBeLessThanOrEqual(capacity);
            const kept = reference.ids.filter((i) => table.get(i) !== undefined);
            expect(kept).toHaveLength(reference.ids.length);
            expect(table.size).toBe(reference.ids.length);
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('deleteOwner removes that owner’s entries only', () => {
    const table = new FairLruTable<string>(8);
    table.set(1, 10, 'a');
    table.set(2, 10, 'b');
    table.set(3, 20, 'c');
    table.deleteOwner(10);
    expect([table.get(1), table.get(2), table.get(3), table.size]).toEqual([undefined, undefined, 'c', 1]);
  });
});

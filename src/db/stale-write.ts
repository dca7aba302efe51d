/**
 * A guarded update found the row at another version than this transaction read (a
 * concurrent write committed in between on PostgreSQL): the write pipeline runs the whole
 * write again on fresh reads. SQLite never sees it, as its write transactions do not overlap.
 */
export class StaleWrite extends Error {
  constructor() {
    super('the row changed under this transaction');
    this.name = 'StaleWrite';
  }
}

/**
 * An answer already written as JSON (by the database, src/db/json-record.ts; a contacts-masked
 * key's copy masked after, lib/mask.ts): the edge sends the text as it is instead of
 * serialising a value again. `customerIds` names the customers in it, for the
 * unusual-activity count (DECISIONS "Unusual activity"), which would otherwise have to
 * parse the text back.
 */
export class JsonText {
  constructor(
    readonly text: string,
    readonly customerIds: readonly string[],
  ) {}
}

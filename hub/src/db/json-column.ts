import { storableJsonText } from '../contract/storable-text.js';

declare const jsonOf: unique symbol;

/**
 * The JSON text of a `T`, made only by `jsonColumn`: what a `Json<T>` column of db/tables.ts takes on insert and
 * update, so a raw string, or the text of another type, does not type-check at the database edge (ADR 0042).
 */
export type JsonText<T> = string & { readonly [jsonOf]: T };

/** `value` as the text of a `jsonb` column typed `Json<T>`. */
export function jsonColumn<T>(value: T): JsonText<T> {
  return brand<T>(JSON.stringify(value));
}

/** As `jsonColumn`, with the escapes `jsonb` refuses rewritten (contract/storable-text.ts): for what a target sent. */
export function storableJsonColumn<T>(value: T): JsonText<T> {
  return brand<T>(storableJsonText(JSON.stringify(value)));
}

/**
 * What a `jsonb` column holds once `text` was written to it, typed as its table reads it (db/tables.ts): the row
 * a query reads back is JSON.parse of the column's text, typed by the table, and so is one made without reading it.
 */
export function jsonColumnValue<Read>(text: JsonText<unknown>): Read;
export function jsonColumnValue(text: string): unknown {
  const value: unknown = JSON.parse(text);
  return value;
}

function brand<T>(text: string): JsonText<T>;
function brand(text: string): string {
  return text;
}

/** JSON text made storable after the fact (contract/storable-text.ts), still the text of a `T`. */
export function storableJson<T>(text: JsonText<T>): JsonText<T> {
  return brand<T>(storableJsonText(text));
}

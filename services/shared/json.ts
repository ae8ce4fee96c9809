/** A JSON value, as stored in idempotency records and returned in bodies. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

// What a caught value (`unknown` in TypeScript) says about itself, read without asserting what it is: a `catch`
// may receive anything a dependency throws, an Error or not.

/** The message of an Error; the text of anything else thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The `code` property of what was thrown (a Node errno like `ENOENT`, an HTTP status of a client library). */
export function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
}

/** A numeric property of what was thrown (`statusCode` of a client library's error), else undefined. */
export function errorNumber(error: unknown, property: string): number | undefined {
  if (typeof error !== 'object' || error === null || !(property in error)) return undefined;
  const value: unknown = Reflect.get(error, property);
  return typeof value === 'number' ? value : undefined;
}

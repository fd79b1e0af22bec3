/**
 * Text PostgreSQL can store. A `jsonb` value refuses the escape `\u0000` and lone surrogates (`\ud800`), and a
 * `text` column refuses NUL, yet a monitored API may answer with either and a run records what it answered.
 * So before storage NUL becomes the six characters `\u0000` and a lone surrogate becomes U+FFFD (docs/runs.md,
 * "What a run stores"; ADR 0014); everything else is kept as it was.
 */

// A surrogate without its partner: a high one not followed by a low one, or a low one not preceded by a high one.
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const UNSTORABLE = /\0|[\uD800-\uDFFF]/;
const UNSTORABLE_ESCAPE = /\\u(?:0000|d[89a-f][0-9a-f]{2})/i;
// The escapes of JSON text, left to right: an escaped backslash first, so that the `u0000` of `\\u0000` (a
// backslash, then the text u0000) is never read as an escape; then a surrogate pair, kept; then what to replace.
const ESCAPES = /\\\\|\\ud[89ab][0-9a-f]{2}\\ud[c-f][0-9a-f]{2}|\\u0000|\\ud[89a-f][0-9a-f]{2}/gi;

export function storableText(text: string): string {
  if (!UNSTORABLE.test(text)) return text;
  return text.replaceAll('\0', '\\u0000').replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * JSON text (as JSON.stringify writes it) that a `jsonb` column takes. It is rewritten as text, in one pass and
 * without parsing, so no nesting depth matters; the common case, nothing to escape, is one scan.
 */
export function storableJsonText(json: string): string {
  if (!UNSTORABLE_ESCAPE.test(json)) return json;
  return json.replace(ESCAPES, (escape) => {
    if (escape.length !== 6) return escape;
    return escape === '\\u0000' ? '\\\\u0000' : '\\ufffd';
  });
}

/** The JSON value with `storableText` applied to every string in it, object keys included. */
export function storableJson<T>(value: T): T {
  return JSON.parse(storableJsonText(JSON.stringify(value))) as T;
}

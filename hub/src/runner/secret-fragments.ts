/**
 * The net under the rule that library messages must not quote input (docs/runner.md, "Secrets"). The redactor
 * hides whole secret values; libraries quote parts of them: Node's DNS and TLS errors name the host of a URL
 * that is a secret, and a library that cuts a long input (`"CANARY-acm"...`) leaves a piece no whole-value match
 * finds.
 */

/** Shorter pieces are too common to hide without hiding ordinary words. */
const MIN_FRAGMENT = 4;
const CUT_MARK = /\.\.\.|…/g;
const QUOTES = new Set(['"', "'", '`']);
const REDACTED = '[secret]';

/** The parts of secret values that libraries quote on their own: the host of a secret URL. */
export function derivedSecretForms(values: Iterable<string>): string[] {
  const forms: string[] = [];
  for (const value of values) {
    if (!/^https?:\/\//i.test(value) || !URL.canParse(value)) continue;
    const { host, hostname } = new URL(value);
    for (const part of [host, hostname]) if (part.length >= MIN_FRAGMENT) forms.push(part);
  }
  return forms;
}

/** How many characters before `end` (or from `start`, going forward) are a piece of one of `forms`. */
function fragmentLength(text: string, forms: readonly string[], at: number, direction: -1 | 1): number {
  const room = direction === -1 ? at : text.length - at;
  const longest = Math.min(room, Math.max(...forms.map((form) => form.length)));
  for (let length = longest; length >= MIN_FRAGMENT; length -= 1) {
    const piece = direction === -1 ? text.slice(at - length, at) : text.slice(at, at + length);
    if (forms.some((form) => form.includes(piece))) return length;
  }
  return 0;
}

/**
 * Hides every piece (of at least 4 characters) of a secret form that touches a cut mark (`...` or `…`), with
 * or without a quote between them. For error messages, which are short: the search is quadratic in the form.
 */
export function hideCutSecretFragments(text: string, forms: readonly string[]): string {
  if (forms.length === 0 || !/\.\.\.|…/.test(text)) return text;
  const hidden: Array<[number, number]> = [];
  for (const mark of text.matchAll(CUT_MARK)) {
    let end = mark.index;
    if (QUOTES.has(text[end - 1] ?? '')) end -= 1;
    let start = mark.index + mark[0].length;
    if (QUOTES.has(text[start] ?? '')) start += 1;
    const before = fragmentLength(text, forms, end, -1);
    if (before > 0) hidden.push([end - before, end]);
    const after = fragmentLength(text, forms, start, 1);
    if (after > 0) hidden.push([start, start + after]);
  }
  if (hidden.length === 0) return text;
  hidden.sort((a, b) => a[0] - b[0]);
  let result = '';
  let copied = 0;
  for (const [from, to] of hidden) {
    if (to <= copied) continue;
    result += text.slice(copied, Math.max(from, copied)) + (from >= copied ? REDACTED : '');
    copied = to;
  }
  return result + text.slice(copied);
}

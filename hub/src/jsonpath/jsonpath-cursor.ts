import { JsonPathSyntaxError } from './jsonpath-syntax-error.js';

// The lexical rules of RFC 9535 section 2: blanks, string and number literals, integers, member names.

const MAX_EXACT_INTEGER = 2 ** 53 - 1;
const isDigit = (char: string) => char >= '0' && char <= '9';
const isBlank = (char: string) => char === ' ' || char === '\t' || char === '\n' || char === '\r';
const isSurrogate = (codePoint: number) => codePoint >= 0xd800 && codePoint <= 0xdfff;
const SIMPLE_ESCAPES: Record<string, string> = {
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  '/': '/',
  '\\': '\\',
};

/** ALPHA / "_" / any code point from U+0080 that is not a surrogate; `digits` adds DIGIT (name-char). */
function isNameCodePoint(codePoint: number, digits: boolean): boolean {
  if (codePoint >= 0x80) return !isSurrogate(codePoint);
  const char = String.fromCharCode(codePoint);
  return /[A-Za-z_]/.test(char) || (digits && isDigit(char));
}

/** A position in the path being parsed. Every read moves forward, so parsing is linear in the path's length. */
export class Cursor {
  position = 0;

  constructor(readonly text: string) {}

  get atEnd(): boolean {
    return this.position >= this.text.length;
  }

  peek(offset = 0): string {
    return this.text.charAt(this.position + offset);
  }

  eat(token: string): boolean {
    if (!this.text.startsWith(token, this.position)) return false;
    this.position += token.length;
    return true;
  }

  expect(token: string): void {
    if (!this.eat(token)) this.unexpected(`expected "${token}"`);
  }

  /** Skips blanks (space, tab, LF, CR); says whether there were any. */
  skipBlanks(): boolean {
    const start = this.position;
    while (isBlank(this.peek())) this.position += 1;
    return this.position > start;
  }

  fail(problem: string, at = this.position): never {
    throw new JsonPathSyntaxError(problem, at);
  }

  /** Fails on the character here, with a hint for the JavaScript habits of other JSONPath dialects. */
  unexpected(expectation?: string): never {
    if (this.atEnd) this.fail(`${expectation ?? 'unexpected'} (the path ends)`);
    const char = String.fromCodePoint(this.text.codePointAt(this.position) ?? 0);
    const found = `${expectation === undefined ? 'unexpected' : `${expectation}, found`} ${JSON.stringify(char)}`;
    const previous = this.text.codePointAt(this.position - 1) ?? 0;
    if (char === '(' && this.position > 0 && isNameCodePoint(previous, true))
      this.fail(`${found} (JSONPath has no methods: use the functions length, count, match, search, value)`);
    if (char === '/') this.fail(`${found} (a regular expression is a string: match(@.name, 'a.*'))`);
    this.fail(found);
  }

  /** string-literal: single- or double-quoted, with JSON's escapes (and \' in single quotes). */
  readString(): string {
    const quote = this.peek();
    this.position += 1;
    let value = '';
    for (;;) {
      if (this.atEnd) this.fail('the string is not closed');
      const codePoint = this.text.codePointAt(this.position) ?? 0;
      const char = String.fromCodePoint(codePoint);
      if (char === quote) {
        this.position += 1;
        return value;
      }
      if (char === '\\') {
        value += this.readEscape(quote);
        continue;
      }
      if (codePoint < 0x20) this.fail('a control character in a string must be escaped');
      if (isSurrogate(codePoint)) this.fail('a lone surrogate in a string');
      value += char;
      this.position += char.length;
    }
  }

  private readEscape(quote: string): string {
    const start = this.position;
    const escaped = this.peek(1);
    this.position += 2;
    if (escaped === quote) return quote;
    const simple = SIMPLE_ESCAPES[escaped];
    if (simple !== undefined) return simple;
    if (escaped !== 'u') this.fail(`invalid escape "\\${escaped}"`, start);
    const unit = this.readHexUnit(start);
    if (unit >= 0xdc00 && unit <= 0xdfff) this.fail('a low surrogate escape without a high one', start);
    if (unit < 0xd800 || unit > 0xdbff) return String.fromCharCode(unit);
    if (!this.eat('\\u')) this.fail('a high surrogate escape must be followed by a low one', start);
    const low = this.readHexUnit(start);
    if (low < 0xdc00 || low > 0xdfff)
      this.fail('a high surrogate escape must be followed by a low one', start);
    return String.fromCharCode(unit, low);
  }

  private readHexUnit(escapeStart: number): number {
    const hex = this.text.slice(this.position, this.position + 4);
    if (!/^[0-9A-Fa-f]{4}$/.test(hex)) this.fail('\\u needs four hexadecimal digits', escapeStart);
    this.position += 4;
    return Number.parseInt(hex, 16);
  }

  /** Whether an integer (or a number literal) starts here. */
  atNumber(): boolean {
    return isDigit(this.peek()) || (this.peek() === '-' && isDigit(this.peek(1)));
  }

  /** int: "0" or an optional minus and digits without a leading zero, within I-JSON's exact range. */
  readInteger(): number {
    const start = this.position;
    this.eat('-');
    if (this.eat('0')) {
      if (this.position - start === 2) this.fail('-0 is not an index', start);
    } else {
      if (!isDigit(this.peek())) this.unexpected('expected a digit');
      while (isDigit(this.peek())) this.position += 1;
    }
    const value = Number(this.text.slice(start, this.position));
    if (Math.abs(value) > MAX_EXACT_INTEGER)
      this.fail('the integer is out of range (at most 2^53 - 1)', start);
    return value;
  }

  /** number: (int / "-0") [ "." digits ] [ ("e" / "E") [sign] digits ]. */
  readNumber(): number {
    const start = this.position;
    this.eat('-');
    if (!this.eat('0')) {
      if (!isDigit(this.peek())) this.unexpected('expected a digit');
      while (isDigit(this.peek())) this.position += 1;
    }
    if (this.peek() === '.' && isDigit(this.peek(1))) {
      this.position += 1;
      while (isDigit(this.peek())) this.position += 1;
    }
    if (this.eat('e') || this.eat('E')) {
      if (!this.eat('-')) this.eat('+');
      if (!isDigit(this.peek())) this.unexpected('expected the digits of an exponent');
      while (isDigit(this.peek())) this.position += 1;
    }
    return Number(this.text.slice(start, this.position));
  }

  /** member-name-shorthand: a name-first character, then name characters. */
  readMemberName(): string {
    const start = this.position;
    let digits = false;
    for (;;) {
      const codePoint = this.text.codePointAt(this.position);
      if (codePoint === undefined || !isNameCodePoint(codePoint, digits)) break;
      this.position += codePoint > 0xffff ? 2 : 1;
      digits = true;
    }
    if (this.position === start) this.unexpected('expected a member name');
    return this.text.slice(start, this.position);
  }

  /** function-name, and the keywords true, false and null: a lower-case letter, then [a-z0-9_]. */
  readLowerCaseWord(): string {
    const start = this.position;
    if (!/[a-z]/.test(this.peek())) return '';
    while (/[a-z0-9_]/.test(this.peek())) this.position += 1;
    return this.text.slice(start, this.position);
  }
}

/**
 * Where a text stops being JSON, for the error of a response that does not parse. JSON.parse's own message
 * quotes the text around the fault (`Unexpected token 'C', "CANARY-acm"... is not valid JSON`), and a response
 * may echo a secret, cut where no redactor can recognise it; this names the place and the kind of fault only.
 */
export interface JsonSyntaxFault {
  /** What is wrong, never quoting the text. */
  problem: string;
  /** Zero-based index of the fault in the text (UTF-16 code units, as JavaScript counts). */
  position: number;
  /** One-based line and column of the fault. */
  line: number;
  column: number;
}

type Expecting = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'comma-or-close' | 'end';

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const ESCAPABLE = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4 = /[0-9a-fA-F]{4}/y;
const LITERALS = ['true', 'false', 'null'];

/** The end of the string that opens at `start`, or the fault inside it. */
function scanString(text: string, start: number): number | { problem: string; position: number } {
  let i = start + 1;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 0x22) return i + 1;
    if (code < 0x20) return { problem: 'control character in a string', position: i };
    if (code === 0x5c) {
      const escaped = text[i + 1];
      HEX4.lastIndex = i + 2;
      if (escaped === 'u' && HEX4.test(text)) i += 6;
      else if (escaped !== undefined && ESCAPABLE.has(escaped)) i += 2;
      else return { problem: 'invalid escape in a string', position: i };
    } else i += 1;
  }
  return { problem: 'unterminated string', position: start };
}

/** The end of the number or literal at `start`, or the fault there. */
function scanScalar(text: string, start: number): number | { problem: string; position: number } {
  if (text[start] === '"') return scanString(text, start);
  NUMBER.lastIndex = start;
  if (NUMBER.test(text)) return NUMBER.lastIndex;
  const literal = LITERALS.find((word) => text.startsWith(word, start));
  if (literal !== undefined) return start + literal.length;
  return { problem: 'unexpected character', position: start };
}

function lineAndColumn(text: string, position: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < position; i = text.indexOf('\n', i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  return { line, column: position - lineStart + 1 };
}

/**
 * The first fault of `text` as JSON (RFC 8259, as JSON.parse reads it), or `undefined` when it is JSON.
 * Iterative, so a deeply nested body cannot exhaust the stack.
 */
export function findJsonSyntaxFault(text: string): JsonSyntaxFault | undefined {
  const open: Array<'array' | 'object'> = [];
  let expecting: Expecting = 'value';
  let i = 0;
  const fault = (problem: string, position: number): JsonSyntaxFault => ({
    problem,
    position,
    ...lineAndColumn(text, position),
  });
  const afterValue = (): Expecting => (open.length === 0 ? 'end' : 'comma-or-close');
  for (;;) {
    while (i < text.length && WHITESPACE.has(text.charCodeAt(i))) i += 1;
    if (i >= text.length) return expecting === 'end' ? undefined : fault('unexpected end of input', i);
    const char = text[i];
    const closes = open.at(-1) === 'object' ? '}' : ']';
    if (expecting === 'end') return fault('unexpected character after the JSON value', i);
    if (expecting === 'colon') {
      if (char !== ':') return fault("expected ':' after a property name", i);
      i += 1;
      expecting = 'value';
    } else if (expecting === 'comma-or-close') {
      if (char === ',') expecting = closes === '}' ? 'key' : 'value';
      else if (char === closes) {
        open.pop();
        expecting = afterValue();
      } else return fault(`expected ',' or '${closes}'`, i);
      i += 1;
    } else if (
      (expecting === 'value-or-close' && char === ']') ||
      (expecting === 'key-or-close' && char === '}')
    ) {
      open.pop();
      i += 1;
      expecting = afterValue();
    } else if (expecting === 'key' || expecting === 'key-or-close') {
      if (char !== '"') return fault('expected a property name in double quotes', i);
      const end = scanString(text, i);
      if (typeof end !== 'number') return fault(end.problem, end.position);
      i = end;
      expecting = 'colon';
    } else if (char === '[' || char === '{') {
      open.push(char === '[' ? 'array' : 'object');
      i += 1;
      expecting = char === '[' ? 'value-or-close' : 'key-or-close';
    } else {
      const end = scanScalar(text, i);
      if (typeof end !== 'number') return fault(end.problem, end.position);
      i = end;
      expecting = afterValue();
    }
  }
}

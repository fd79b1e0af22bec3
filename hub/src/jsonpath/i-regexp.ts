// I-Regexp (RFC 9485), the pattern language of match() and search(), translated to RE2 syntax. RE2 matches in
// time linear in the input (re2js), where JavaScript's RegExp backtracks: `(a+)+$` against 40 a's and a "!"
// takes hours there. I-Regexp has no backreferences and no lookaround, so every I-Regexp has an RE2 equivalent.
// `^` and `$` anchor, as in RFC 9485's own mapping to ECMAScript and in the JSONPath compliance test suite
// (its grammar alone would make them ordinary characters).

/** RE2's repetition limit; RFC 9485 sets none, and larger counts are refused rather than silently false. */
const MAX_REPEAT = 1000;
const SINGLE_CHAR_ESCAPES = new Map<string, number>([
  ...[...'()*+-.?[\\]^{|}'].map((char): [string, number] => [char, char.codePointAt(0) ?? 0]),
  ['n', 0x0a],
  ['r', 0x0d],
  ['t', 0x09],
]);
const CATEGORIES = new Set(
  'L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps Z Zl Zp Zs S Sc Sk Sm So C Cc Cf Cn Co'.split(
    ' ',
  ),
);
// Characters that must be escaped to stand for themselves outside a character class.
const NOT_NORMAL = new Set([...'()*+.?[\\]{|}']);

class PatternError extends Error {}

/** One code point as RE2 reads it literally, inside or outside a class. */
const literal = (codePoint: number) =>
  /^[A-Za-z0-9]$/.test(String.fromCodePoint(codePoint))
    ? String.fromCodePoint(codePoint)
    : `\\x{${codePoint.toString(16)}}`;

class PatternReader {
  private index = 0;
  constructor(private readonly codePoints: number[]) {}

  get atEnd() {
    return this.index >= this.codePoints.length;
  }
  peek(offset = 0): string {
    const codePoint = this.codePoints[this.index + offset];
    return codePoint === undefined ? '' : String.fromCodePoint(codePoint);
  }
  next(): number {
    const codePoint = this.codePoints[this.index];
    if (codePoint === undefined) throw new PatternError('the pattern ends too early');
    this.index += 1;
    return codePoint;
  }
}

/** `\p{Lu}` / `\P{Lu}` after the backslash has been read; the RE2 spelling is the same. */
function readCategory(reader: PatternReader): string {
  const kind = String.fromCodePoint(reader.next());
  if (reader.peek() !== '{')
    throw new PatternError(`\\${kind} needs a category in braces, e.g. \\${kind}{L}`);
  reader.next();
  let name = '';
  while (!reader.atEnd && reader.peek() !== '}') name += String.fromCodePoint(reader.next());
  reader.next();
  if (!CATEGORIES.has(name)) throw new PatternError(`unknown Unicode category "${name}"`);
  return `\\${kind}{${name}}`;
}

/** SingleCharEsc after the backslash: the code point it stands for. */
function readSingleEscape(reader: PatternReader): number {
  const char = String.fromCodePoint(reader.next());
  const codePoint = SINGLE_CHAR_ESCAPES.get(char);
  if (codePoint === undefined) throw new PatternError(`"\\${char}" is not an I-Regexp escape`);
  return codePoint;
}

function readClassCharacter(reader: PatternReader): number {
  const char = reader.peek();
  if (char === '[' || char === ']' || char === '-')
    throw new PatternError(`"${char}" must be escaped inside [...]`);
  reader.next();
  return char === '\\' ? readSingleEscape(reader) : (char.codePointAt(0) ?? 0);
}

/** charClassExpr after its "[". */
function readClass(reader: PatternReader): string {
  let out = '[';
  if (reader.peek() === '^') {
    reader.next();
    out = '[^';
  }
  for (let first = true; ; first = false) {
    if (reader.atEnd) throw new PatternError('a [...] class is not closed');
    const char = reader.peek();
    if (char === ']' && !first) break;
    if (char === '-' && (first || reader.peek(1) === ']')) {
      reader.next();
      out += literal(0x2d);
    } else if (char === '\\' && (reader.peek(1) === 'p' || reader.peek(1) === 'P')) {
      reader.next();
      out += readCategory(reader);
    } else {
      const low = readClassCharacter(reader);
      if (reader.peek() === '-' && reader.peek(1) !== ']' && reader.peek(1) !== '') {
        reader.next();
        const high = readClassCharacter(reader);
        if (high < low) throw new PatternError('a [...] range is out of order');
        out += `${literal(low)}-${literal(high)}`;
      } else out += literal(low);
    }
  }
  reader.next();
  return `${out}]`;
}

/** range-quantifier after its "{": `{n}`, `{n,}` or `{n,m}`. */
function readRangeQuantifier(reader: PatternReader): string {
  let text = '';
  while (!reader.atEnd && reader.peek() !== '}') text += String.fromCodePoint(reader.next());
  reader.next();
  const parts = /^(\d+)(,(\d*))?$/.exec(text);
  if (parts === null) throw new PatternError(`"{${text}}" is not a repetition`);
  const counts = [parts[1], parts[3]].filter((count) => count !== undefined && count !== '').map(Number);
  if (counts.some((count) => count > MAX_REPEAT))
    throw new PatternError(`repetition counts above ${MAX_REPEAT} are not supported`);
  if (counts.length === 2 && (counts[1] ?? 0) < (counts[0] ?? 0))
    throw new PatternError(`"{${text}}" counts down`);
  return `{${text}}`;
}

/** One atom (NormalChar, charClass or a group's parenthesis) in RE2 syntax. */
function readAtom(reader: PatternReader, char: string, codePoint: number): string {
  switch (char) {
    case '(':
      return '(?:';
    case '.':
      return '[^\\n\\r]';
    case '^':
    case '$':
      return char;
    case '[':
      return readClass(reader);
    case '\\':
      return reader.peek() === 'p' || reader.peek() === 'P'
        ? readCategory(reader)
        : literal(readSingleEscape(reader));
    default:
      if (NOT_NORMAL.has(char)) throw new PatternError(`"${char}" must be escaped`);
      return literal(codePoint);
  }
}

function translate(reader: PatternReader): string {
  let out = '';
  let depth = 0;
  let repeatable = false;
  while (!reader.atEnd) {
    const char = reader.peek();
    const codePoint = reader.next();
    if (char === '*' || char === '+' || char === '?' || char === '{') {
      if (!repeatable) throw new PatternError(`"${char}" has nothing to repeat`);
      out += char === '{' ? readRangeQuantifier(reader) : char;
      repeatable = false;
    } else if (char === '|') {
      out += '|';
      repeatable = false;
    } else if (char === ')') {
      if (depth === 0) throw new PatternError('")" without "("');
      depth -= 1;
      out += ')';
      repeatable = true;
    } else {
      if (char === '(') depth += 1;
      out += readAtom(reader, char, codePoint);
      repeatable = char !== '(' && char !== '^' && char !== '$';
    }
  }
  if (depth > 0) throw new PatternError('"(" without ")"');
  return out;
}

/** The RE2 pattern that matches what the I-Regexp matches, or why the text is not an I-Regexp. */
export function translateIRegexp(pattern: string): { re2: string } | { problem: string } {
  try {
    return { re2: translate(new PatternReader([...pattern].map((char) => char.codePointAt(0) ?? 0))) };
  } catch (error) {
    if (error instanceof PatternError) return { problem: error.message };
    throw error;
  }
}

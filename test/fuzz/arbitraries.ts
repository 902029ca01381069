// Generators of hostile values for the fuzz suite: values of the wrong JSON
// type, odd Unicode, strings over a limit, deeply nested values, prototype
// keys, broken JSON text, tampered header values and ids that look like
// paths. The request builders (mcp-cases.ts, rest-cases.ts) place them.
import fc from 'fast-check';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonPath = (string | number)[];

// ---------------------------------------------------------------------------
// JSON values and where they sit

/** Keys that change an object's prototype when a parser or Object.assign meets them. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A key for generated objects: never one of the prototype keys (those have their own generator). */
const plainKey = fc.string({ maxLength: 8 }).filter((key) => !PROTOTYPE_KEYS.has(key));

const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 12 }),
);

/** Any JSON value, small. */
export const anyJson: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(plainKey, tie('value'), { maxKeys: 3, noNullPrototype: true }),
  ),
})).value;

type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';

export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

const valueOfType: Record<JsonType, fc.Arbitrary<Json>> = {
  null: fc.constant(null),
  boolean: fc.boolean(),
  integer: fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 53, -(2 ** 31))),
  number: fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
    fc.constantFrom(0.5, -1.5, 1e-300, 4.9e-324),
  ),
  string: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', '1', 'true', 'null', '{}', '[]')),
  array: fc.array(anyJson, { maxLength: 3 }),
  object: fc.dictionary(plainKey, anyJson, { maxKeys: 3, noNullPrototype: true }),
};

/** A value whose JSON type differs from `original`'s (an integer for a string, an object for an array, ...). */
export function wrongTypeFor(original: unknown): fc.Arbitrary<Json> {
  const own = jsonTypeOf(original);
  const others = (Object.keys(valueOfType) as JsonType[]).filter(
    // An integer is a number too: 1 where a float sat is not a wrong type.
    (type) => type !== own && !(own === 'number' && type === 'integer'),
  );
  return fc.constantFrom(...others).chain((type) => valueOfType[type]);
}

/** Every path to a value inside `value` (the root excluded), objects' keys and arrays' indices alike. */
export function pathsOf(value: unknown, prefix: JsonPath = []): JsonPath[] {
  const children: [string | number, unknown][] = Array.isArray(value)
    ? value.map((item, index) => [index, item])
    : typeof value === 'object' && value !== null
      ? Object.entries(value)
      : [];
  return children.flatMap(([key, child]) => [[...prefix, key], ...pathsOf(child, [...prefix, key])]);
}

export function getAt(value: unknown, path: JsonPath): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], value);
}

/** A copy of `value` with the value at `path` replaced. */
export function setAt<T>(value: T, path: JsonPath, replacement: unknown): T {
  if (path.length === 0) return replacement as T;
  const [key, ...rest] = path;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[key!] = setAt(copy[key!], rest, replacement);
  return copy;
}

/** Paths to objects inside `value`, the root included: where a key can be added. */
export function objectPathsOf(value: unknown): JsonPath[] {
  const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
  return [[], ...pathsOf(value)].filter((path) => isObject(getAt(value, path)));
}

/** `value` with an own, enumerable `key` added at the object at `path` (so `__proto__` is written as a key). */
export function withKeyAt<T>(value: T, path: JsonPath, key: string, added: unknown): T {
  const target = getAt(value, path) as object;
  const copy = { ...target };
  Object.defineProperty(copy, key, { value: added, enumerable: true, writable: true, configurable: true });
  return setAt(value, path, copy);
}

// ---------------------------------------------------------------------------
// Strings

/** Pieces of text that trouble decoders, renderers and length checks. */
export const ODD_PIECES = [
  '\ud800', // lone high surrogate (JSON.stringify writes it as \ud800)
  '\udfff', // lone low surrogate
  '\u0000',
  '\u200f', // right-to-left mark
  '\u202e', // right-to-left override
  '\u200b', // zero-width space
  '\ufeff', // byte order mark
  'e\u0301', // e + combining acute
  '\u0301\u0301\u0301',
  '\u{1F600}',
  '\u{1F469}\u200d\u{1F4BB}', // an emoji sequence
  '\u2028',
  '\ufffe',
  '\uffff',
  '\u0085',
  '%00',
  '../',
  '..%2F',
  '/etc/passwd',
  '\\',
  '"',
  '\r\n',
];

export const oddString: fc.Arbitrary<string> = fc
  .array(fc.oneof(fc.constantFrom(...ODD_PIECES), fc.string({ maxLength: 4 })), { minLength: 1, maxLength: 8 })
  .map((pieces) => pieces.join(''));

/** Odd text that is valid Unicode: its lone surrogates made U+FFFD (the room refuses a body holding one). */
export const oddWellFormedString: fc.Arbitrary<string> = oddString.map((text) =>
  text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'),
);

/**
 * Single code points for strings of an exact length in code points (JSON
 * Schema maxLength), each one a summary may hold: lone surrogates and hidden
 * characters are refused whatever the length (tests of their own).
 */
const ONE_CODE_POINT = ['a', 'é', '\u{1F600}', '\u0301', '\u200d', '中'];

/** Whether a value holds a string or key with a lone surrogate: the room refuses the whole body. */
export function holdsLoneSurrogate(value: unknown): boolean {
  const pending = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(next)) return true;
    } else if (next !== null && typeof next === 'object' && !(next instanceof Deep)) {
      for (const [key, child] of Object.entries(next)) pending.push(key, child);
    }
  }
  return false;
}

/** A string of exactly `length` code points, from odd pieces. */
export const codePoints = (length: number): fc.Arbitrary<string> =>
  fc
    .array(fc.constantFrom(...ONE_CODE_POINT), { minLength: 1, maxLength: 8 })
    .map((pieces) => Array.from({ length }, (_, i) => pieces[i % pieces.length]).join(''));

/** Replacements for a string field: odd text, very long text, or text far over a limit. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: oddString },
  { weight: 1, arbitrary: fc.integer({ min: 2_001, max: 20_000 }).chain((n) => codePoints(n)) },
);

// ---------------------------------------------------------------------------
// Deep nesting

/**
 * A deeply nested value, written into the JSON text only (the test never
 * builds it as an object: JSON.stringify would overflow the test's own
 * stack). It serializes to a marker that `serialize` replaces.
 */
export class Deep {
  constructor(
    readonly depth: number,
    readonly shape: 'array' | 'object',
  ) {}
  toJSON(): string {
    return `\u0000deep:${this.depth}:${this.shape}\u0000`;
  }
  text(): string {
    return this.shape === 'array'
      ? `${'['.repeat(this.depth)}${']'.repeat(this.depth)}`
      : `${'{"a":'.repeat(this.depth)}1${'}'.repeat(this.depth)}`;
  }
}

export const deepValue: fc.Arbitrary<Deep> = fc
  .tuple(fc.constantFrom(64, 200, 1_000, 5_000, 20_000, 150_000), fc.constantFrom('array' as const, 'object' as const))
  .map(([depth, shape]) => new Deep(depth, shape));

const DEEP_MARKER = /"\\u0000deep:(\d+):(array|object)\\u0000"/g;

/** JSON text of a value that may hold Deep markers. */
export function serialize(value: unknown): string {
  return JSON.stringify(value).replace(DEEP_MARKER, (_, depth: string, shape: 'array' | 'object') =>
    new Deep(Number(depth), shape).text(),
  );
}

// ---------------------------------------------------------------------------
// Broken JSON text

/** A proper prefix of a JSON object's text: never valid JSON. */
export const truncated = (text: string, minLength = 0): fc.Arbitrary<string> =>
  fc.integer({ min: minLength, max: text.length - 1 }).map((end) => text.slice(0, end));

/** Text with junk put in at some position (it may, rarely, still be valid JSON). */
export const withJunk = (text: string): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.integer({ min: 0, max: text.length }),
      fc.oneof(
        fc.constantFrom(',', '}', ']', '{', '"', '\\', ':', 'NaN', 'undefined', "'", '\u0000', '/*x*/', ',,', '\ud800'),
        fc.string({ minLength: 1, maxLength: 4 }),
      ),
    )
    .map(([at, junk]) => text.slice(0, at) + junk + text.slice(at));

export function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** JSON documents that are not one object. */
export const notAnObject = (message: unknown): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom('null', 'true', '0', '-1.5', '"2.0"', '[]', '[{}]', '""'),
    fc.constant(JSON.stringify([message])),
    fc.constant(JSON.stringify([message, message])),
    anyJson.filter((v) => jsonTypeOf(v) !== 'object').map((v) => JSON.stringify(v)),
  );

// ---------------------------------------------------------------------------
// Prototype keys

/** A value with a prototype key (`__proto__`, or `constructor` holding `prototype`) added at one of its objects. */
export function withPrototypeKey(value: unknown): fc.Arbitrary<{ value: unknown; key: string; escaped: boolean }> {
  const paths = objectPathsOf(value);
  return fc
    .record({
      path: fc.constantFrom(...paths),
      form: fc.constantFrom('__proto__', 'constructor.prototype', '__proto__.nested'),
      payload: fc.constantFrom<Json>(
        { summary: 'from the prototype' },
        { isAdmin: true, capabilities: ['admin'] },
        {},
        null,
        'x',
      ),
      escaped: fc.boolean(),
    })
    .map(({ path, form, payload, escaped }) => {
      if (form === 'constructor.prototype') {
        return { value: withKeyAt(value, path, 'constructor', { prototype: payload }), key: 'constructor', escaped };
      }
      const inner = form === '__proto__.nested' ? { a: withKeyAt({}, [], '__proto__', payload) } : payload;
      return {
        value: withKeyAt(value, path, form === '__proto__' ? '__proto__' : 'x', inner),
        key: '__proto__',
        escaped,
      };
    });
}

/** JSON text in which "__proto__" keys are written with a \u escape, as a parser must still see them. */
export const escapePrototypeKeys = (text: string): string =>
  text.replaceAll('"__proto__"', '"\\u005f_proto__"').replaceAll('"prototype"', '"\\u0070rototype"');

// ---------------------------------------------------------------------------
// Header values

export const base64Wrap = (value: string): string => `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;

/** `=?base64?...?=` around text that is not valid Base64. */
export const badBase64: fc.Arbitrary<string> = fc
  .oneof(
    fc.constantFrom('***', 'a', 'abcde', '-_-_', 'YQ=x', '====', 'Zm9v!', ' Zm9v'),
    fc.stringMatching(/^[A-Za-z0-9+/]{1,8}[^A-Za-z0-9+/=]{1,2}$/),
  )
  .map((inner) => `=?base64?${inner}?=`);

/** A header value node:http will send: visible ASCII and spaces, no line breaks. */
export const headerText: fc.Arbitrary<string> = fc
  .string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 })
  .map((text) => text.trim());

// ---------------------------------------------------------------------------
// Ids in paths

/** Path segments that look like paths, escapes or nothing at all: each as sent in the request target. */
export const oddIdSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '..',
    '.',
    '...',
    '%2e%2e',
    '..%2F..%2Fetc%2Fpasswd',
    '%2F',
    'a%2Fb',
    '%2Fetc%2Fpasswd',
    '%00',
    'x%00y',
    '%E0%A4%A',
    '%C0%AF',
    '%ZZ',
    '%',
    '%25',
    '%u0041',
    '~',
    '%20',
    'ho_%0d%0aX-Injected:%201',
    '%3Cscript%3E',
    '%EF%BB%BF',
    '%ED%A0%80',
    'constructor',
    '__proto__',
    'toString',
    'hasOwnProperty',
    'ho_',
    'tk_AAAAAAAAAAAAAAAAAAAAAA',
  ),
  oddString.filter((s) => s.length > 0).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd'))),
  fc.integer({ min: 101, max: 4_000 }).map((n) => 'a'.repeat(n)),
  fc.string({
    unit: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)),
    minLength: 1,
    maxLength: 4,
  }),
);

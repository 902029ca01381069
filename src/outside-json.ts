// JSON that comes from outside the process (request bodies, the runtime
// file, files named on the command line) is parsed here and nowhere else.
// Before anything walks it, a document nested deeper than MAX_JSON_DEPTH is
// refused by a scan of its text. A `__proto__` key, or a `constructor`
// holding `prototype`, is refused anywhere in the document: once such a
// value is merged into an object it changes what every read through the
// prototype chain sees. A string (or key) that is not valid Unicode (a lone
// surrogate, which only a \u escape can make) is refused: stored, it would
// come back as U+FFFD, and what was acknowledged would not be what was kept.
// Every walk here is a loop, never a recursion.
import secureJson from 'secure-json-parse';

/**
 * How deep objects and arrays may nest in any JSON the room takes (a
 * request body; an operation's input): ample for every schema of the room,
 * and far from what would exhaust a stack in validation or serialization.
 */
export const MAX_JSON_DEPTH = 64;

export type OutsideJsonProblem = 'malformed' | 'forbidden_key' | 'too_deep' | 'invalid_unicode';

export class OutsideJsonError extends Error {
  constructor(
    message: string,
    /** Malformed text, a forbidden key, nesting too deep, or a string that is not valid Unicode. */
    readonly kind: OutsideJsonProblem,
  ) {
    super(message);
    this.name = 'OutsideJsonError';
  }
}

export interface OutsideJsonOptions {
  /**
   * False: only parse, refusing prototype keys; depth and Unicode are left
   * to whoever the document is passed on to (ce bridge passes each line on
   * to the room as it came, and the room answers with the line's id).
   */
  judge?: boolean;
}

/** How deep `text` nests, counted without parsing it, stopping once past `limit`. */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** `params.arguments.summary`: a place in a document, as messages name it (the root is `what`). */
const placeName = (path: readonly string[]): string => path.join('.');

/**
 * The JSON Pointer of the first forbidden key, for the message (the library
 * decides what is forbidden); found by a loop, whatever the depth.
 */
function forbiddenKeyPath(root: unknown): string | null {
  const pending: { value: unknown; at: string }[] = [{ value: root, at: '' }];
  while (pending.length > 0) {
    const { value, at } = pending.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (Object.hasOwn(value, '__proto__')) return `${at}/__proto__`;
    const entries = Object.entries(value);
    for (const [key, child] of entries) {
      if (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype')) {
        return `${at}/constructor/prototype`;
      }
    }
    // Pushed last to first, so that the document's first key is looked into first.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      pending.push({ value: child, at: `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}` });
    }
  }
  return null;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Only a \u escape of a surrogate in the text can make a lone one: without it, nothing to walk. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** Where a lone surrogate is in `text`: its index in code points, and the surrogate. */
function loneSurrogate(text: string): { at: number; code: string } | null {
  const match = LONE_SURROGATE.exec(text);
  if (!match) return null;
  return {
    at: [...text.slice(0, match.index)].length,
    code: `U+${match[0].charCodeAt(0).toString(16).toUpperCase()}`,
  };
}

/** The first string or key of `root` that is not valid Unicode, named by its place; found by a loop. */
function invalidUnicode(root: unknown, what: string): string | null {
  const pending: { value: unknown; path: string[] }[] = [{ value: root, path: [] }];
  while (pending.length > 0) {
    const { value, path } = pending.pop()!;
    if (typeof value === 'string') {
      const bad = loneSurrogate(value);
      if (bad) {
        const place = path.length === 0 ? what : placeName(path);
        return `${place} is not valid Unicode: it holds a lone surrogate (${bad.code}) at index ${bad.at}`;
      }
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const entries = Object.entries(value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      const bad = loneSurrogate(key);
      if (bad) {
        const within = path.length === 0 ? what : placeName(path);
        return `a key of ${within} is not valid Unicode: it holds a lone surrogate (${bad.code}) at index ${bad.at}`;
      }
      pending.push({ value: child, path: [...path, key] });
    }
  }
  return null;
}

/**
 * Parses `text` as JSON, refusing what no document of the room may hold.
 * `what` names the document in messages ("the request body",
 * "--result-file notes.json").
 */
export function parseOutsideJson(text: string, what: string, options: OutsideJsonOptions = {}): unknown {
  const judge = options.judge ?? true;
  if (judge && nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new OutsideJsonError(`${what} nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`, 'too_deep');
  }
  let parsed: unknown;
  try {
    parsed = secureJson.parse(text, null, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    forbiddenOrMalformed(text, what);
  }
  if (judge && SURROGATE_ESCAPE.test(text)) {
    const problem = invalidUnicode(parsed, what);
    if (problem) throw new OutsideJsonError(problem, 'invalid_unicode');
  }
  return parsed;
}

/** secure-json-parse refused `text`: say whether it is not JSON, or which forbidden key it holds. */
function forbiddenOrMalformed(text: string, what: string): never {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    throw new OutsideJsonError(
      text.trim() === '' ? `${what} is empty; it must be a JSON document` : `${what} is not valid JSON`,
      'malformed',
    );
  }
  const path = forbiddenKeyPath(parsed) ?? '';
  const key = path.endsWith('/constructor/prototype') ? 'constructor.prototype' : '__proto__';
  throw new OutsideJsonError(
    `${what} has a forbidden key ${key} (at ${path}); such keys are refused anywhere in a document`,
    'forbidden_key',
  );
}

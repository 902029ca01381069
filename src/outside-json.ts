// JSON that comes from outside the process (request bodies, the runtime
// file, files named on the command line) is parsed here and nowhere else.
// A `__proto__` key, or a `constructor` holding `prototype`, is refused
// anywhere in the document: once such a value is merged into an object it
// changes what every read through the prototype chain sees.
import secureJson from 'secure-json-parse';

export class OutsideJsonError extends Error {
  constructor(
    message: string,
    /** Malformed text, or well-formed JSON holding a forbidden key. */
    readonly kind: 'malformed' | 'forbidden_key',
  ) {
    super(message);
    this.name = 'OutsideJsonError';
  }
}

/** The JSON Pointer of the first forbidden key, for the message; the library decides what is forbidden. */
function forbiddenKeyPath(value: unknown, at = ''): string | null {
  if (value === null || typeof value !== 'object') return null;
  if (Object.hasOwn(value, '__proto__')) return `${at}/__proto__`;
  for (const [key, child] of Object.entries(value)) {
    if (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype')) {
      return `${at}/constructor/prototype`;
    }
    const found = forbiddenKeyPath(child, `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
    if (found) return found;
  }
  return null;
}

/**
 * Parses `text` as JSON, refusing prototype keys. `what` names the document
 * in messages ("the request body", "--result-file notes.json").
 */
export function parseOutsideJson(text: string, what: string): unknown {
  try {
    return secureJson.parse(text, null, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    } catch {
      return malformed(what, text);
    }
    const path = forbiddenKeyPath(parsed) ?? '';
    const key = path.endsWith('/constructor/prototype') ? 'constructor.prototype' : '__proto__';
    throw new OutsideJsonError(
      `${what} has a forbidden key ${key} (at ${path}); such keys are refused anywhere in a document`,
      'forbidden_key',
    );
  }
}

function malformed(what: string, text: string): never {
  throw new OutsideJsonError(
    text.trim() === '' ? `${what} is empty; it must be a JSON document` : `${what} is not valid JSON`,
    'malformed',
  );
}

// generated/rules.ts: the rules a client needs besides the types, worked out
// from the schemas once, so that no client restates them: which handoff
// statuses allow what (x-allows of HandoffStatus), and the limits of each
// operation's input fields (maxLength, minimum, exclusiveMinimum, x-max-bytes). The page
// imports them; the engine checks handoff statuses with them.
import prettier from 'prettier';
import { HEADER, resolveRef, type Json } from './schema-tools.js';
import type { Operation } from './table.js';

const LIMIT_KEYWORDS = ['maxLength', 'minimum', 'exclusiveMinimum', 'maximum', 'maxItems', 'x-max-bytes'] as const;

/** The limits of each field of an input schema and of its objects' fields (`error.message`), references followed. */
function fieldLimits(defs: Record<string, Json>, schema: Json, prefix = '', limits: Json = {}): Json {
  for (const [name, raw] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
    const property = typeof raw.$ref === 'string' ? { ...resolveRef(defs, raw.$ref), ...raw } : raw;
    const found = Object.fromEntries(
      LIMIT_KEYWORDS.filter((keyword) => typeof property[keyword] === 'number').map((k) => [k, property[k]]),
    );
    if (Object.keys(found).length > 0) limits[prefix + name] = found;
    if (prefix === '' && property.properties) fieldLimits(defs, property, `${name}.`, limits);
  }
  return limits;
}

export function emitRules(defs: Record<string, Json>, operations: Operation[]): Promise<string> {
  const status = defs.HandoffStatus!;
  const allows = status['x-allows'] as Record<string, string[]>;
  const limits = Object.fromEntries(operations.map((op) => [op.id, fieldLimits(defs, defs[op.input]!)]));
  const code = [
    `// ${HEADER}`,
    `import type { HandoffStatus } from './types.js';`,
    ``,
    `/** ${String(status['x-allows-description'])} */`,
    `export const HANDOFF_STATUS_ALLOWS = ${JSON.stringify(allows)} as const satisfies Record<string, readonly HandoffStatus[]>;`,
    `export type HandoffAction = keyof typeof HANDOFF_STATUS_ALLOWS;`,
    ``,
    `/** Whether a handoff in \`status\` takes \`action\`. */`,
    `export const handoffAllows = (action: HandoffAction, status: HandoffStatus): boolean =>`,
    `  (HANDOFF_STATUS_ALLOWS[action] as readonly HandoffStatus[]).includes(status);`,
    ``,
    `/** Each operation's input fields with a limit, by operation id: what a form may check before sending. */`,
    `export const INPUT_LIMITS = ${JSON.stringify(limits)} as const;`,
    ``,
  ].join('\n');
  return prettier.format(code, { parser: 'typescript', printWidth: 120, singleQuote: true });
}

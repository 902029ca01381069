// generated/operation-runner.ts: the one place an operation is run. For each
// operation of the table, in the table's order: its compiled input validator,
// then who may act (a participant with the capability, or any actor with it),
// then its engine function with the checked input. A switch rather than a
// lookup so that TypeScript checks each engine function's signature against
// the operation's types, with no cast.
import prettier from 'prettier';
import { HEADER } from './schema-tools.js';
import type { Operation } from './table.js';

function who(op: Operation): string {
  if (op.actor === 'participant') return `access.participant(actor, '${op.capability}')`;
  if (op.capability === null) return 'actor';
  return `access.actor(actor, '${op.capability}')`;
}

export function emitOperationRunner(operations: Operation[]): Promise<string> {
  const inputs = [...new Set(operations.map((op) => op.input))].sort();
  const code = [
    `// ${HEADER}`,
    `import type { ValidateFunction } from 'ajv';`,
    `import type { EngineOperations, OperationId, OperationTypes } from './operations.js';`,
    `import type { Capability } from './types.js';`,
    `import { ${inputs.map((title) => `validate${title}`).join(', ')} } from './input-validators.js';`,
    ``,
    `/** The validator of each operation's input: what it checks, with defaults filled, is the operation's checked type. */`,
    `export const operationValidators: { [K in OperationId]: ValidateFunction<OperationTypes[K]['checked']> } = {`,
    ...operations.map((op) => `  ${op.id}: validate${op.input},`),
    `};`,
    ``,
    `/** How the engine checks an input and who may act; the runner applies them in this order. */`,
    `export interface OperationAccess<Actor, Caller> {`,
    `  /** The input as checked (defaults filled), or the engine's invalid_input error. */`,
    `  check<T>(validate: ValidateFunction<T>, input: unknown): T;`,
    `  /** The participant acting, if the actor is one and holds the capability. */`,
    `  participant(actor: Actor, capability: Capability): Caller;`,
    `  /** The actor, if it holds the capability. */`,
    `  actor(actor: Actor, capability: Capability): Actor;`,
    `}`,
    ``,
    `export type OperationRunner<Room, Actor> = <K extends OperationId>(`,
    `  room: Room,`,
    `  actor: Actor,`,
    `  id: K,`,
    `  input: unknown,`,
    `) => OperationTypes[K]['output'];`,
    ``,
    `/** runOperation over an engine: input checked, then access, then the engine function. */`,
    `export function createOperationRunner<Room, Actor, Caller>(`,
    `  engine: EngineOperations<Room, Actor, Caller>,`,
    `  access: OperationAccess<Actor, Caller>,`,
    `): OperationRunner<Room, Actor> {`,
    `  function run<K extends OperationId>(room: Room, actor: Actor, id: K, input: unknown): OperationTypes[K]['output'];`,
    `  function run(room: Room, actor: Actor, id: OperationId, input: unknown): OperationTypes[OperationId]['output'] {`,
    `    switch (id) {`,
    ...operations.flatMap((op) => [
      `      case '${op.id}': {`,
      `        const args = access.check(operationValidators.${op.id}, input);`,
      `        return engine.${op.id}(room, ${who(op)}, args);`,
      `      }`,
    ]),
    `    }`,
    `  }`,
    `  return run;`,
    `}`,
    ``,
  ].join('\n');
  return prettier.format(code, { parser: 'typescript', printWidth: 120, singleQuote: true });
}

// generated/operation-runner.ts: the one place an operation is run. For each
// operation of the table, in the table's order: who may act (a participant
// with the capability, or any actor with it), then its compiled input
// validator, then its engine function with the checked input. Who first, as
// HTTP has it (401, then 403, then 400): a session that may not act is told
// so at once, not after mending an input it may not send anyway. A switch
// rather than a lookup so that TypeScript checks each engine function's
// signature against the operation's types, with no cast.
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
    `/** Who may act and how the engine checks an input; the runner applies them in this order. */`,
    `export interface OperationAccess<Actor, Caller> {`,
    `  /** The participant acting, if the actor is one and holds the capability. */`,
    `  participant(actor: Actor, capability: Capability): Caller;`,
    `  /** The actor, if it holds the capability. */`,
    `  actor(actor: Actor, capability: Capability): Actor;`,
    `  /** The input as checked (defaults filled), or the engine's invalid_input error. */`,
    `  check<T>(validate: ValidateFunction<T>, input: unknown): T;`,
    `}`,
    ``,
    `export type OperationRunner<Room, Actor> = <K extends OperationId>(`,
    `  room: Room,`,
    `  actor: Actor,`,
    `  id: K,`,
    `  input: unknown,`,
    `) => OperationTypes[K]['output'];`,
    ``,
    `/** runOperation over an engine: access, then the input checked, then the engine function. */`,
    `export function createOperationRunner<Room, Actor, Caller>(`,
    `  engine: EngineOperations<Room, Actor, Caller>,`,
    `  access: OperationAccess<Actor, Caller>,`,
    `): OperationRunner<Room, Actor> {`,
    `  function run<K extends OperationId>(room: Room, actor: Actor, id: K, input: unknown): OperationTypes[K]['output'];`,
    `  function run(room: Room, actor: Actor, id: OperationId, input: unknown): OperationTypes[OperationId]['output'] {`,
    `    switch (id) {`,
    ...operations.flatMap((op) => [
      `      case '${op.id}': {`,
      `        const acting = ${who(op)};`,
      `        return engine.${op.id}(room, acting, access.check(operationValidators.${op.id}, input));`,
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

// Every engine function the operation table names, checked against the
// table's signatures, and the one runner every door calls: adding an
// operation is its table entry and its function, exported from index.ts.
import { createOperationRunner } from '../../generated/operation-runner.js';
import type { EngineOperations } from '../../generated/operations.js';
import type { Caller } from '../../generated/types.js';
import { requireActorCapability, requireParticipant, type Actor } from './access.js';
import { checkInput } from './check-input.js';
import * as engine from './operation-functions.js';
import type { Room } from './room.js';

export const engineOperations: EngineOperations<Room, Actor, Caller> = engine;

/**
 * Runs operation `id` for `actor`: its input checked (defaults filled), who
 * may act checked, then its engine function. The only way a door reaches the
 * engine's operations.
 */
export const runOperation = createOperationRunner<Room, Actor, Caller>(engineOperations, {
  check: checkInput,
  participant: requireParticipant,
  actor: (actor, capability) => {
    requireActorCapability(actor, capability);
    return actor;
  },
});

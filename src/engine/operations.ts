// Every engine function the operation table names, checked against the
// table's signatures: adding an operation is its table entry and its
// function, exported from index.ts. The doors look functions up here.
import type { EngineOperations } from '../../generated/operations.js';
import type { Actor } from './access.js';
import * as engine from './index.js';
import type { Room } from './room.js';

export const engineOperations: EngineOperations<Room, Actor> = engine;

// How a command gets at the room. Reading commands read the sidecar directly
// and never take the lock. State-changing commands go through the running
// room process when there is one (its REST API, src/cli/remote.ts), so its
// subscribers see the change; with none running they take the writer's lock
// for the command's duration. There are never two writers (PRODUCT.md §5,
// CLI). The room is always closed.
//
// The engine (SQLite, the compiled validators) is loaded only when a command
// runs, so `--help` and usage errors answer without it.
import { DomainError, isDomainError } from '../engine/errors.js';
import type { Room } from '../engine/index.js';
import { findRoomProcess, RoomNotListening, type RoomProcess } from './remote.js';

export type Engine = typeof import('../engine/index.js');

const loadEngine = (): Promise<Engine> => import('../engine/index.js');

/** Opens the room read-only, runs `use`, closes it. */
export async function reading<T>(file: string, use: (room: Room, engine: Engine) => T): Promise<T> {
  const engine = await loadEngine();
  const room = openExisting(engine, file);
  try {
    return use(room, engine);
  } finally {
    room.close();
  }
}

export interface WritingOptions<T> {
  /** The same change sent to the running room process; its answer is the same output (or DomainError). */
  remote: (room: RoomProcess) => Promise<T>;
  /** Only `ce init` makes a room; every other command refuses a file that is not one yet. */
  create?: boolean;
}

/**
 * Sends the change through the running room process when there is one
 * (`remote`); otherwise opens the room for writing as `command` (named in
 * the lock), runs `use`, closes it. A process holding the lock without
 * serving (or one that stopped listening) is refused before anything is
 * written.
 */
export async function writing<T>(
  file: string,
  command: string,
  use: (room: Room, engine: Engine) => T,
  options: WritingOptions<T>,
): Promise<T> {
  const running = await findRoomProcess(file);
  if (running) {
    try {
      return await options.remote(running);
    } catch (error) {
      // Nothing received the request: the writer's lock decides below.
      if (!(error instanceof RoomNotListening)) throw error;
    }
  }
  const engine = await loadEngine();
  const room = openForWriting(engine, file, command, options.create ?? false);
  try {
    return use(room, engine);
  } finally {
    room.close();
  }
}

/** Takes the writer's lock as `command`; a running room process is refused with what it means. */
export function openForWriting(engine: Engine, file: string, command: string, create: boolean): Room {
  try {
    return engine.openRoom(file, { command, create });
  } catch (error) {
    if (isDomainError(error) && error.code === 'not_found') throw notARoom(file, error);
    if (isDomainError(error) && error.code === 'locked') {
      throw new DomainError(
        'locked',
        `a room process is running for ${file}: ${error.message}; nothing was written`,
        error.details,
      );
    }
    throw error;
  }
}

export { loadEngine };

/** A read-only open; a file that is not a room yet is refused with what to do about it. */
function openExisting(engine: Engine, file: string): Room {
  try {
    return engine.openRoom(file, { mode: 'read' });
  } catch (error) {
    if (isDomainError(error) && error.code === 'not_found') throw notARoom(file, error);
    throw error;
  }
}

const notARoom = (file: string, error: DomainError): DomainError =>
  new DomainError('not_found', `${error.message}; make it a room first: ce init ${file}`, error.details);

// How a command gets at the room. Reading commands read the sidecar directly
// and never take the lock; state-changing commands take the writer's lock
// for the command's duration (PRODUCT.md §5, CLI). The room is always closed.
//
// The engine (SQLite, the compiled validators) is loaded only when a command
// runs, so `--help` and usage errors answer without it.
import { DomainError, isDomainError } from '../engine/errors.js';
import type { Room } from '../engine/index.js';

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

export interface WritingOptions {
  /** Only `ce init` makes a room; every other command refuses a file that is not one yet. */
  create?: boolean;
}

/**
 * Opens the room for writing as `command` (named in the lock), runs `use`,
 * closes it. A room process holding the lock is refused before anything is
 * written.
 */
export async function writing<T>(
  file: string,
  command: string,
  use: (room: Room, engine: Engine) => T,
  options: WritingOptions = {},
): Promise<T> {
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

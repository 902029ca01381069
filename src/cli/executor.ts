// One executor for every operation command, with two ways to the room. A
// reading operation opens the sidecar read-only, never taking the lock. A
// state change goes through the running room process when there is one (its
// REST API with the operator token: src/cli/remote.ts), so its subscribers
// see it; with none running it opens the room under the writer's lock for
// the command's duration. There are never two writers (PRODUCT.md §5, CLI).
//
// Either way the caller is the same: the local operator, or, with
// --participant NAME, that participant with read, write and approve
// (actAs, the engine's rule for both ways), so the answer, or the refusal
// with its code, message and details, is the same.
//
// The engine (SQLite, the compiled validators) is loaded only when a command
// runs, so `--help` and usage errors answer without it.
import type { Operation } from '../../generated/operations.js';
import { DomainError, isDomainError } from '../errors.js';
import type { Room } from '../engine/index.js';
import { findRoomProcess, roomClient, RoomNotListening } from './remote.js';

export type Engine = typeof import('../engine/index.js');

export const loadEngine = (): Promise<Engine> => import('../engine/index.js');

/** A room file on this machine, or a room anywhere by its address with a session token. */
export type RoomTarget = { file: string } | { url: URL; token: string; ca?: Buffer };

/**
 * Runs `operation` and returns its output: on the room of a file as the
 * local operator (or as `participant`), or on a room by its address as the
 * session whose token is given, reading and writing through its REST API.
 */
export async function execute(
  target: RoomTarget,
  operation: Operation,
  input: Record<string, unknown>,
  participant: string | null,
): Promise<unknown> {
  if ('url' in target) {
    const client = roomClient({
      baseUrl: target.url.href,
      token: target.token,
      ...(target.ca ? { ca: target.ca } : {}),
      name: `the room at ${target.url.origin}`,
    });
    try {
      return await client.call(operation, input, null);
    } catch (error) {
      if (error instanceof RoomNotListening) {
        throw new DomainError('unavailable', `nothing listens at ${target.url.origin}; nothing was sent`, {
          reason: 'ECONNREFUSED',
          reached: false,
        });
      }
      throw error;
    }
  }
  const { file } = target;
  // Whatever the command, a runtime file left by a room process that is gone is removed here.
  const running = await findRoomProcess(file);
  if (operation.changes) {
    if (running) {
      try {
        return await running.call(operation, input, participant);
      } catch (error) {
        // Nothing received the request: the writer's lock decides below.
        if (!(error instanceof RoomNotListening)) throw error;
      }
    }
  }
  const engine = await loadEngine();
  const { runOperation } = await import('../engine/operations.js');
  const room = operation.changes
    ? openForWriting(engine, file, `ce ${operation.cli.command}`, false)
    : openForReading(engine, file);
  try {
    const actor = participant === null ? engine.LOCAL_OPERATOR : engine.actAs(room, participant);
    return runOperation(room, actor, operation.id, input);
  } finally {
    room.close();
  }
}

/** Takes the writer's lock as `command`; a running room process is refused with what it means. */
export function openForWriting(engine: Engine, file: string, command: string, create: boolean, fourEyes = false): Room {
  try {
    return engine.openRoom(file, { command, create, fourEyes });
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

/** A read-only open; a file that is not a room yet is refused with what to do about it. */
export function openForReading(engine: Engine, file: string): Room {
  try {
    return engine.openRoom(file, { mode: 'read' });
  } catch (error) {
    if (isDomainError(error) && error.code === 'not_found') throw notARoom(file, error);
    throw error;
  }
}

const notARoom = (file: string, error: DomainError): DomainError =>
  new DomainError('not_found', `${error.message}; make it a room first: ce init ${file}`, error.details);

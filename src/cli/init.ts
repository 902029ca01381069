// ce init FILE: makes the file a room (creates or migrates its sidecar) and
// records the file as the initial revision. Again on a room, it says so. A
// served room already is one: init answers from the sidecar, read-only, and
// leaves recording outside edits to the room process (its file watcher).
import { statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { Revision } from '../../generated/types.js';
import { DomainError, folderGiven } from '../errors.js';
import { loadEngine, openForReading, openForWriting } from './executor.js';
import { command, FILE_ARGUMENT } from './options.js';
import { findRoomProcess } from './remote.js';
import { answer, fields, type JsonOption } from './output.js';

export interface InitOutput {
  artifact: string;
  sidecar: string;
  /** False when this call recorded the initial revision. */
  already_room: boolean;
  /** The current revision. */
  revision: Revision;
  /** What syncArtifact recorded now: the initial revision, an outside edit, or nothing. */
  recorded: Revision | null;
}

export function initCommand(program: Command): void {
  command(program, 'init', 'make a markdown file a room: create its sidecar and record revision 1')
    .argument(...FILE_ARGUMENT)
    .addHelpText('after', '\nExample:\n  $ ce init notes.md')
    .action(async (file: string, options: JsonOption) => {
      requireFile(file);
      answer(options, await init(file), plain);
    });
}

/**
 * A served room already is one: init answers from the sidecar, read-only,
 * and leaves recording outside edits to the room process (its file watcher).
 * Otherwise it takes the writer's lock, making the sidecar if there is none.
 */
async function init(file: string): Promise<InitOutput> {
  const engine = await loadEngine();
  const running = await findRoomProcess(file);
  const room = running ? openForReading(engine, file) : openForWriting(engine, file, 'ce init', true);
  try {
    const recorded = running ? null : engine.syncArtifact(room);
    return {
      artifact: path.resolve(file),
      sidecar: room.sidecar.path,
      already_room: recorded?.source !== 'initial',
      revision: recorded ?? engine.runOperation(room, engine.LOCAL_OPERATOR, 'readArtifact', {}).revision,
      recorded,
    };
  } finally {
    room.close();
  }
}

/** The room is around an existing file: init never creates a sidecar for a mistyped name. */
export function requireFile(file: string): void {
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat) throw new DomainError('not_found', `${file} does not exist; ce init makes a room of an existing file`);
  if (stat.isDirectory()) throw folderGiven(file);
  if (!stat.isFile()) throw new DomainError('invalid_input', `${file} is not a file`);
}

function plain(result: InitOutput): string {
  const name = path.basename(result.artifact);
  const headline = !result.already_room
    ? `${name} is now a room`
    : result.recorded
      ? `${name} already is a room; recorded an outside edit as revision ${result.recorded.number}${notTextNote(result.recorded)}`
      : `${name} already is a room`;
  return `${headline}\n${fields([
    ['file', result.artifact],
    ['revision', result.revision.number],
    ['sidecar', result.sidecar],
  ])}`;
}

/** Said wherever a recorded outside edit left the file not UTF-8 text. */
export const notTextNote = (revision: Revision): string =>
  revision.utf8 ? '' : ' (not UTF-8 text: it cannot be read or changed as text until it is saved as UTF-8 again)';

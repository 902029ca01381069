// A room on disk, made with the engine and closed again, for tests that then
// run `ce` or `ce serve` on it: notes.md in a fresh directory, its sidecar,
// and whatever `prepare` adds (participants, sessions, handoffs).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { openRoom, syncArtifact, type Room } from './engine.js';
import { tempDir } from './room.js';

export function withRoomFile<T extends object>(prepare: (room: Room) => T): T & { file: string } {
  const file = path.join(tempDir(), 'notes.md');
  writeFileSync(file, '# Notes\n');
  const room = openRoom(file, { command: 'vitest' });
  try {
    syncArtifact(room);
    return { ...prepare(room), file };
  } finally {
    room.close();
  }
}

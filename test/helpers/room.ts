import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Capability, Caller } from '../../generated/types.js';
import { addParticipant, LOCAL_OPERATOR, ManualClock, openRoom, type Room } from './engine.js';

export interface TestRoom {
  room: Room;
  clock: ManualClock;
  dir: string;
  artifact: string;
  close(): void;
}

export function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'commonroom-test-'));
}

/** A fresh room on a temporary markdown file, with a clock that only moves when told. */
export function makeRoom(participants: string[] = ['alice', 'bob', 'carol', 'dave']): TestRoom {
  const dir = tempDir();
  const artifact = path.join(dir, 'room.md');
  writeFileSync(artifact, '# Test room\n');
  const clock = new ManualClock();
  const room = openRoom(artifact, { clock, command: 'vitest' });
  for (const name of participants) addParticipant(room, LOCAL_OPERATOR, { name });
  return {
    room,
    clock,
    dir,
    artifact,
    close() {
      room.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const ALL_CAPS: Capability[] = ['read', 'write', 'approve', 'admin'];

export const caller = (participant: string, capabilities: Capability[] = ['read', 'write']): Caller => ({
  participant,
  capabilities,
});

/** Every row of every table, to show that a refused operation changed nothing. */
export function dumpDatabase(room: Room): Record<string, unknown[]> {
  const tables = room.store.db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as { name: string }[];
  return Object.fromEntries(
    tables.map(({ name }) => [name, room.store.db.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).all()]),
  );
}

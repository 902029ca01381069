// The served room's watch on its artifact (src/engine/artifact/watch.ts):
// it follows the file at the artifact's path through editors' renames and
// deletions, and watches nothing else in its directory.
import {
  appendFileSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import {
  approveProposal,
  listHistory,
  proposeChange,
  syncArtifact,
  watchArtifact,
  type Room,
} from '../helpers/engine.js';
import { caller, makeRoom, type TestRoom } from '../helpers/room.js';

let t: TestRoom;
let room: Room;
let stop: () => void = () => {};
beforeEach(() => {
  t = makeRoom();
  room = t.room;
  syncArtifact(room); // revision 1: the file as the room found it
});
afterEach(() => {
  stop();
  t.close();
});

/** Where each revision came from, oldest first. */
const sources = () =>
  listHistory(room, caller('alice'), {})
    .entries.filter((entry) => entry.kind === 'revision')
    .map((entry) => entry.revision!.source);
const recorded = (count: number) => expect.poll(() => sources().length, { timeout: 5_000, interval: 20 }).toBe(count);
const lastContent = () => readFileSync(t.artifact, 'utf8');

/** As an editor saves: a whole new file renamed over the old one. */
function saveByRename(text: string): void {
  const temp = path.join(t.dir, `.${path.basename(t.artifact)}.swp`);
  writeFileSync(temp, text);
  renameSync(temp, t.artifact);
}

test('after an editor renames a new file over the old, edits of the new file are still recorded', async () => {
  stop = watchArtifact(room);
  saveByRename('# Saved by an editor\n');
  await recorded(2);
  // The watch is on the new file now: an edit in place of it is seen too.
  appendFileSync(t.artifact, 'and then appended to\n');
  await recorded(3);
  saveByRename('# Saved again\n');
  await recorded(4);
  expect(sources()).toEqual(['initial', 'external', 'external', 'external']);
  expect(lastContent()).toBe('# Saved again\n');
});

test('a file deleted and written again is recorded once it is back', async () => {
  stop = watchArtifact(room);
  rmSync(t.artifact);
  await new Promise((resolve) => setTimeout(resolve, 150)); // the watch moved to the directory meanwhile
  expect(sources()).toEqual(['initial']);
  writeFileSync(t.artifact, '# Back again\n');
  await recorded(2);
  // And the watch is on the file again.
  appendFileSync(t.artifact, 'edited once back\n');
  await recorded(3);
});

test('the room’s own writes of the file do not lose the watch', async () => {
  stop = watchArtifact(room);
  const { proposal } = proposeChange(room, caller('alice'), {
    base_revision: 1,
    content: '# Better\n',
    summary: 'retitle',
  });
  approveProposal(room, caller('dave', ['read', 'approve']), { proposal_id: proposal.proposal_id });
  expect(sources()).toEqual(['initial', 'proposal']);
  appendFileSync(t.artifact, 'edited after the approval\n');
  await recorded(3);
  expect(sources()).toEqual(['initial', 'proposal', 'external']);
});

/** Inodes this process watches with inotify, from /proc (Linux). */
function watchedInodes(): Set<number> {
  const inodes = new Set<number>();
  for (const fd of readdirSync('/proc/self/fd')) {
    let link: string;
    try {
      link = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (link !== 'anon_inode:inotify') continue;
    for (const match of readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').matchAll(/^inotify wd:\S+ ino:([0-9a-f]+)/gm)) {
      inodes.add(Number.parseInt(match[1]!, 16));
    }
  }
  return inodes;
}

test.runIf(process.platform === 'linux')(
  'only the file is watched: writes beside it, the sidecar’s among them, reach no watch of the room',
  async () => {
    stop = watchArtifact(room);
    const watched = watchedInodes();
    expect(watched.has(statSync(t.artifact).ino)).toBe(true);
    expect(watched.has(statSync(t.dir).ino)).toBe(false);
    // Deleted, the directory is watched until the file is back; then only the file again.
    rmSync(t.artifact);
    await expect.poll(() => watchedInodes().has(statSync(t.dir).ino), { timeout: 5_000, interval: 20 }).toBe(true);
    writeFileSync(t.artifact, '# Back\n');
    await recorded(2);
    const after = watchedInodes();
    expect(after.has(statSync(t.artifact).ino)).toBe(true);
    expect(after.has(statSync(t.dir).ino)).toBe(false);
  },
);

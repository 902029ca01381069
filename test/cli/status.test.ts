// ce status over the built binary: a room no process serves says what its
// sidecar holds; a served one, its process, addresses and readiness too. A
// sidecar a later ce made is read, and refused for serving.
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { addParticipant, createHandoff, createSession, LOCAL_OPERATOR } from '../helpers/engine.js';
import { ceServe } from '../helpers/ce-serve.js';
import { withRoomFile } from '../helpers/room-file.js';
import { caller, tempDir } from '../helpers/room.js';
import { ce, failedWith, failedWithJson, okJson, okPlain } from '../helpers/run-ce.js';
import type { StatusOutput } from '../../src/cli/status.js';
import { DEFAULT_MAX_STREAMS } from '../../src/http/mcp/stream-kinds.js';
import { openFileLimit, streamsWithin } from '../../src/http/open-files.js';

const SLOW = { timeout: 60_000 };

/** A room with one open handoff and one live session. */
const prepareRoom = (): string =>
  withRoomFile((room) => {
    addParticipant(room, LOCAL_OPERATOR, { name: 'alice' });
    createSession(room, LOCAL_OPERATOR, { participant: 'alice', capabilities: ['read'] });
    createHandoff(room, caller('alice', ['read', 'write']), { summary: 'Proofread' });
    return {};
  }).file;

test('a room no process serves: what its sidecar holds, and that nothing serves it', SLOW, async () => {
  const file = prepareRoom();
  const shown = okPlain(await ce(['status', file])).split('\n');
  expect(shown.slice(0, 8)).toEqual([
    `room:       ${file}`,
    'served:     no: no room process runs for this file (ce serve FILE starts one)',
    expect.stringMatching(/^revision: {3}1, at \d{4}-\d\d-\d\dT/),
    'handoffs:   1 open',
    'tasks:      1 active, of the 32 the room takes',
    'proposals:  0 open (0 in conflict)',
    'sessions:   1 live',
    expect.stringMatching(/^last event: \d{4}-/),
  ]);
  // The event ring: every event the room has recorded so far, none pruned yet.
  expect(shown[8]).toBe('event ring: 3 events kept, the newest #3');
  expect(shown[9]).toMatch(
    new RegExp(
      `^sidecar: {4}${file.replaceAll('.', '\\.')}\\.commonroom\\.db \\(\\d+ bytes with its write-ahead log\\)$`,
    ),
  );
  const json = okJson<StatusOutput>(await ce(['status', file, '--json']));
  expect(json).toMatchObject({
    file,
    process: null,
    room: { handoffs: { open: 1 }, tasks: { active: 1, limit: 32 }, open_proposals: 0, live_sessions: 1 },
  });
});

test('a served room: its process, addresses and readiness, and what its sidecar holds', SLOW, async () => {
  const file = prepareRoom();
  const served = await ceServe(file);
  onTestFinished(served.kill);
  const json = okJson<StatusOutput>(await ce(['status', file, '--json']));
  expect(json.process).toMatchObject({
    pid: served.pid,
    mcp_url: served.mcpUrl,
    rest_url: served.restUrl,
    ready: {
      status: 'ready',
      ready: true,
      checks: { sidecar: 'ok', writer_lock: 'ok', last_commit: 'ok', file: 'ok' },
    },
  });
  expect(json.room).toMatchObject({ handoffs: { open: 1 }, live_sessions: 1 });
  expect(json.process!.streams).toEqual({ listen: 0, page: 0, get_mcp: 0 });
  // The room's 10,000, or fewer when the process may open fewer files (it has this one's limit).
  const most = streamsWithin(DEFAULT_MAX_STREAMS, openFileLimit());
  expect(json.process!.max_streams).toBe(most);
  const shown = okPlain(await ce(['status', file]));
  expect(shown).toMatch(new RegExp(`^streams: +0 listening, 0 pages, 0 GET /mcp, of at most ${most}$`, 'm'));
  expect(shown).toMatch(
    new RegExp(`^served: +by process ${served.pid} \\(ce \\d+\\.\\d+\\.\\d+\\) for \\d+ s, since `, 'm'),
  );
  expect(shown).toMatch(/^ready: +yes$/m);
  expect(shown).toContain(`mcp:        ${served.mcpUrl}`);
  expect(await served.stop()).toBe(0);
});

test('a file that is not a room: refused, saying to make it one', SLOW, async () => {
  const file = path.join(tempDir(), 'plain.md');
  writeFileSync(file, '# Plain\n');
  const run = await ce(['status', file]);
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(/make it a room first: ce init /);
});

test(
  'a sidecar a later ce made: ce serve refuses it as a conflict that says to upgrade; ce status still reads it',
  SLOW,
  async () => {
    const file = prepareRoom();
    const sidecar = `${file}.commonroom.db`;
    const db = new Database(sidecar);
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'from a later ce', 0)").run();
    db.close();
    const rows = () => {
      const reader = new Database(sidecar, { readonly: true });
      try {
        const tables = reader
          .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
          .pluck()
          .all();
        return tables.map((table) => reader.prepare(`SELECT * FROM "${String(table)}"`).all());
      } finally {
        reader.close();
      }
    };
    const before = rows();
    const newer = /^(ce: )?the sidecar has schema version 999, newer than this ce knows \(\d+\); upgrade ce$/m;
    failedWithJson(await ce(['serve', file, '--port', '0', '--json']), 'conflict', newer);
    failedWith(await ce(['serve', file, '--port', '0']), 1, newer);
    expect(rows()).toEqual(before);
    // Read only, its status still shows what it holds.
    expect(okJson<StatusOutput>(await ce(['status', file, '--json'])).room).toMatchObject({ handoffs: { open: 1 } });
  },
);

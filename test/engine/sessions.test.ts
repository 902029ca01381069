import { createHash } from 'node:crypto';
import { readFileSync, existsSync } from 'node:fs';
import { afterEach, beforeEach, expect, test } from 'vitest';
import {
  addParticipant,
  authenticate,
  createSession,
  listParticipants,
  listSessions,
  LOCAL_OPERATOR,
  removeParticipant,
  revokeSession,
  type Room,
} from '../helpers/engine.js';
import { expectRefused } from '../helpers/expect-refused.js';
import { caller, makeRoom, type TestRoom } from '../helpers/room.js';

let t: TestRoom;
let room: Room;
beforeEach(() => {
  t = makeRoom();
  room = t.room;
});
afterEach(() => t.close());

test('a session resolves to its participant and capabilities', () => {
  const { session, token } = createSession(room, LOCAL_OPERATOR, {
    participant: 'alice',
    capabilities: ['read', 'write'],
  });
  expect(token).toMatch(/^cr_[A-Za-z0-9_-]{43}$/); // 256 random bits
  expect(session).toMatchObject({
    participant: 'alice',
    capabilities: ['read', 'write'],
    expires_at: null,
    revoked_at: null,
  });
  expect(authenticate(room, token)).toEqual({
    participant: 'alice',
    capabilities: ['read', 'write'],
    session_id: session.session_id,
  });
});

test('the token is shown once and stored only as a hash', () => {
  const { session, token } = createSession(room, LOCAL_OPERATOR, { participant: 'alice', capabilities: ['read'] });
  const row = room.store.db.prepare('SELECT * FROM sessions WHERE id = ?').get(session.session_id) as Record<
    string,
    unknown
  >;
  expect(row.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
  expect(JSON.stringify(row)).not.toContain(token);
  expect(JSON.stringify(listSessions(room, LOCAL_OPERATOR, {}))).not.toContain(token);
  room.store.db.pragma('wal_checkpoint(TRUNCATE)');
  for (const file of [room.sidecar.path, `${room.sidecar.path}-wal`]) {
    if (existsSync(file)) expect(readFileSync(file).includes(Buffer.from(token))).toBe(false);
  }
});

test('no token, an unknown one, a revoked one and an expired one are refused alike', () => {
  const revoked = createSession(room, LOCAL_OPERATOR, { participant: 'alice', capabilities: ['read'] });
  const expiring = createSession(room, LOCAL_OPERATOR, {
    participant: 'bob',
    capabilities: ['read'],
    expires_in_seconds: 60,
  });
  expect(expiring.session.expires_at).toBe(new Date(t.clock.now() + 60_000).toISOString());
  expect(authenticate(room, expiring.token).participant).toBe('bob');

  revokeSession(room, LOCAL_OPERATOR, { session_id: revoked.session.session_id });
  t.clock.advance(60_000);
  for (const token of [undefined, '', 'cr_madeup', revoked.token, expiring.token]) {
    expectRefused(room, () => authenticate(room, token), 'unauthorized', /a valid session token is required/);
  }
  expectRefused(
    room,
    () => revokeSession(room, LOCAL_OPERATOR, { session_id: revoked.session.session_id }),
    'conflict',
    /already revoked/,
  );
  expectRefused(
    room,
    () => revokeSession(room, LOCAL_OPERATOR, { session_id: 'se_nope' }),
    'not_found',
    /unknown session/,
  );
  // Listed live, they are gone; a session still in use is there.
  const live = createSession(room, LOCAL_OPERATOR, { participant: 'bob', capabilities: ['read'] });
  const ids = (args: { live?: boolean }) =>
    listSessions(room, LOCAL_OPERATOR, args).sessions.map((session) => session.session_id);
  expect(ids({ live: true })).toEqual([live.session.session_id]);
  expect(ids({}).sort()).toEqual(
    [live.session.session_id, revoked.session.session_id, expiring.session.session_id].sort(),
  );
});

test('removing a participant ends its sessions from the next request; adding it back does not revive them', () => {
  const { token } = createSession(room, LOCAL_OPERATOR, { participant: 'carol', capabilities: ['read'] });
  const admin = createSession(room, LOCAL_OPERATOR, { participant: 'alice', capabilities: ['admin'] });
  const adminCaller = authenticate(room, admin.token);
  const removed = removeParticipant(room, adminCaller, { name: 'carol' });
  expect(removed.participant.removed_at).not.toBeNull();
  expectRefused(room, () => authenticate(room, token), 'unauthorized', /valid session token/);
  expect(listParticipants(room, LOCAL_OPERATOR).participants.map((p) => p.name)).toEqual(['alice', 'bob', 'dave']);
  expect(listParticipants(room, LOCAL_OPERATOR, { include_removed: true }).participants.map((p) => p.name)).toContain(
    'carol',
  );
  expectRefused(
    room,
    () => createSession(room, LOCAL_OPERATOR, { participant: 'carol', capabilities: ['read'] }),
    'not_found',
    /carol is not a participant/,
  );
  expectRefused(
    room,
    () => removeParticipant(room, LOCAL_OPERATOR, { name: 'carol' }),
    'not_found',
    /not a participant/,
  );

  addParticipant(room, LOCAL_OPERATOR, { name: 'carol' });
  expectRefused(room, () => authenticate(room, token), 'unauthorized', /valid session token/);
  const fresh = createSession(room, LOCAL_OPERATOR, { participant: 'carol', capabilities: ['read'] });
  expect(authenticate(room, fresh.token).participant).toBe('carol');
});

test('sessions and participants: bad input and duplicates', () => {
  expectRefused(
    room,
    () => createSession(room, LOCAL_OPERATOR, { participant: 'alice', capabilities: [] as never }),
    'invalid_input',
    /capabilities must NOT have fewer than 1 items/,
  );
  expectRefused(
    room,
    () => createSession(room, LOCAL_OPERATOR, { participant: 'alice', capabilities: ['fly' as never] }),
    'invalid_input',
    /capabilities.0 must be one of "read", "write", "approve", "admin"/,
  );
  expectRefused(
    room,
    () => addParticipant(room, LOCAL_OPERATOR, { name: 'alice' }),
    'conflict',
    /already a participant/,
  );
  expectRefused(
    room,
    () => addParticipant(room, LOCAL_OPERATOR, { name: '-bad' }),
    'invalid_input',
    /^name must be a name of letters, digits/,
  );
  expectRefused(room, () => listSessions(room, caller('alice', ['read']), {}), 'forbidden', /admin/);
});

test('a session the room has already let in is refused at once when revoked, expired or its participant removed', () => {
  const revoked = createSession(room, LOCAL_OPERATOR, { participant: 'alice', capabilities: ['read'] });
  const expiring = createSession(room, LOCAL_OPERATOR, {
    participant: 'bob',
    capabilities: ['read'],
    expires_in_seconds: 60,
  });
  const removed = createSession(room, LOCAL_OPERATOR, { participant: 'carol', capabilities: ['read'] });
  const kept = createSession(room, LOCAL_OPERATOR, { participant: 'dave', capabilities: ['read', 'approve'] });
  // Each let in twice: the second answer is the one the room kept.
  for (const { token } of [revoked, expiring, removed, kept]) {
    expect(authenticate(room, token)).toEqual(authenticate(room, token));
  }

  revokeSession(room, LOCAL_OPERATOR, { session_id: revoked.session.session_id });
  expectRefused(room, () => authenticate(room, revoked.token), 'unauthorized', /valid session token/);

  t.clock.advance(59_999);
  expect(authenticate(room, expiring.token).participant).toBe('bob');
  t.clock.advance(1);
  expectRefused(room, () => authenticate(room, expiring.token), 'unauthorized', /valid session token/);

  removeParticipant(room, LOCAL_OPERATOR, { name: 'carol' });
  expectRefused(room, () => authenticate(room, removed.token), 'unauthorized', /valid session token/);

  expect(authenticate(room, kept.token)).toEqual({
    participant: 'dave',
    capabilities: ['read', 'approve'],
    session_id: kept.session.session_id,
  });
});

test('more sessions than the room keeps in memory all still authenticate, and a revoked one among them does not', () => {
  const sessions = Array.from({ length: 1100 }, () =>
    createSession(room, LOCAL_OPERATOR, { participant: 'alice', capabilities: ['read'] }),
  );
  for (const { token } of sessions) expect(authenticate(room, token).participant).toBe('alice');
  for (const { token, session } of sessions) expect(authenticate(room, token).session_id).toBe(session.session_id);
  revokeSession(room, LOCAL_OPERATOR, { session_id: sessions[1099]!.session.session_id });
  expectRefused(room, () => authenticate(room, sessions[1099]!.token), 'unauthorized', /valid session token/);
  expect(authenticate(room, sessions[0]!.token).participant).toBe('alice');
});

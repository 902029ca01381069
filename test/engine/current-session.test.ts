import { afterEach, beforeEach, expect, test } from 'vitest';
import { actAs, authenticate, createSession, getSession, LOCAL_OPERATOR, type Room } from '../helpers/engine.js';
import { expectRefused } from '../helpers/expect-refused.js';
import { makeRoom, type TestRoom } from '../helpers/room.js';

let t: TestRoom;
let room: Room;
beforeEach(() => {
  t = makeRoom();
  room = t.room;
});
afterEach(() => t.close());

test('a session sees its participant, its capabilities and its own session row, needing no capability', () => {
  const { session, token } = createSession(room, LOCAL_OPERATOR, {
    participant: 'alice',
    capabilities: ['approve'],
    expires_in_seconds: 3600,
  });
  const answer = getSession(room, authenticate(room, token), {});
  expect(answer).toEqual({ participant: 'alice', capabilities: ['approve'], session });
  expect(answer.session!.expires_at).not.toBeNull();
});

test('the local operator has no participant, every capability and no session', () => {
  expect(getSession(room, LOCAL_OPERATOR, {})).toEqual({
    participant: null,
    capabilities: ['read', 'write', 'approve', 'admin'],
    session: null,
  });
});

test('the operator acting as a participant is that participant with read, write and approve, and no session', () => {
  expect(getSession(room, actAs(room, 'bob'), {})).toEqual({
    participant: 'bob',
    capabilities: ['read', 'write', 'approve'],
    session: null,
  });
});

test('it takes no input', () => {
  expectRefused(
    room,
    () => getSession(room, LOCAL_OPERATOR, { participant: 'alice' } as never),
    'invalid_input',
    /participant/,
  );
});

import { afterEach, beforeEach, expect, test } from 'vitest';
import {
  actAs,
  authenticate,
  createSession,
  getSession,
  LOCAL_OPERATOR,
  updateSettings,
  type Room,
} from '../helpers/engine.js';
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
  expect(answer).toEqual({ participant: 'alice', capabilities: ['approve'], session, four_eyes: false });
  expect(answer.session!.expires_at).not.toBeNull();
});

test('the local operator has no participant, every capability and no session', () => {
  expect(getSession(room, LOCAL_OPERATOR, {})).toEqual({
    participant: null,
    capabilities: ['read', 'write', 'approve', 'admin'],
    session: null,
    four_eyes: false,
  });
});

test('the operator acting as a participant is that participant with read, write and approve, and no session', () => {
  expect(getSession(room, actAs(room, 'bob'), {})).toEqual({
    participant: 'bob',
    capabilities: ['read', 'write', 'approve'],
    session: null,
    four_eyes: false,
  });
});

test("four_eyes says whether a second person decides: the room's setting, or the room opened with it", () => {
  updateSettings(room, LOCAL_OPERATOR, { four_eyes: true });
  expect(getSession(room, actAs(room, 'bob'), {}).four_eyes).toBe(true);
  updateSettings(room, LOCAL_OPERATOR, { four_eyes: false });
  expect(getSession(room, LOCAL_OPERATOR, {}).four_eyes).toBe(false);
  expect(getSession({ ...room, fourEyes: true }, LOCAL_OPERATOR, {}).four_eyes).toBe(true);
});

test('it takes no input', () => {
  expectRefused(
    room,
    () => getSession(room, LOCAL_OPERATOR, { participant: 'alice' } as never),
    'invalid_input',
    /participant/,
  );
});

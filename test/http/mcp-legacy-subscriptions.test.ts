// resources/subscribe, kept for older clients: each session's URIs are held
// while the session holds. A session that unsubscribes from its last URI is
// forgotten at once; one that ended (revoked, expired, its participant
// removed) at the next sweep, so a room that runs for months does not keep
// the URIs of every session that ever subscribed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sessionHolds } from '../../src/engine/index.js';
import { LegacySubscriptions } from '../../src/mcp/legacy-subscriptions.js';
import { createSession, LOCAL_OPERATOR, removeParticipant, revokeSession } from '../helpers/engine.js';
import { makeRoom, type TestRoom } from '../helpers/room.js';

const ARTIFACT = 'workspace:///room.md';
const HANDOFFS = 'workspace:///.room/handoffs';

let t: TestRoom;
beforeEach(() => {
  t = makeRoom();
});
afterEach(() => t.close());

const session = (participant: string, expiresInSeconds?: number) =>
  createSession(t.room, LOCAL_OPERATOR, {
    participant,
    capabilities: ['read'],
    ...(expiresInSeconds === undefined ? {} : { expires_in_seconds: expiresInSeconds }),
  }).session.session_id;

describe('legacy subscriptions', () => {
  it('hold a session’s URIs until it unsubscribes from its last', () => {
    const held = new LegacySubscriptions(() => true);
    held.subscribe('se_a', ARTIFACT);
    held.subscribe('se_a', HANDOFFS);
    held.subscribe('se_b', ARTIFACT);
    expect([...held.of('se_a')!]).toEqual([ARTIFACT, HANDOFFS]);
    held.unsubscribe('se_a', ARTIFACT);
    held.unsubscribe('se_a', 'workspace:///never-subscribed');
    expect([...held.of('se_a')!]).toEqual([HANDOFFS]);
    held.unsubscribe('se_a', HANDOFFS);
    expect(held.of('se_a')).toBeUndefined();
    expect(held.sessions).toBe(1);
  });

  it('forget the sessions that ended, revoked, expired or their participant removed, and keep those that hold', () => {
    const held = new LegacySubscriptions((id) => sessionHolds(t.room, id));
    const revoked = Array.from({ length: 40 }, () => session('alice'));
    const expiring = Array.from({ length: 40 }, () => session('alice', 60));
    const removed = Array.from({ length: 40 }, () => session('carol'));
    for (const id of [...revoked, ...expiring, ...removed]) held.subscribe(id, ARTIFACT);
    for (const id of revoked) revokeSession(t.room, LOCAL_OPERATOR, { session_id: id });
    t.clock.advance(61_000);
    removeParticipant(t.room, LOCAL_OPERATOR, { name: 'carol' });
    const live = Array.from({ length: 100 }, () => session('bob'));
    for (const id of live) held.subscribe(id, HANDOFFS);
    for (const id of [...revoked, ...expiring, ...removed]) expect(held.of(id)).toBeUndefined();
    for (const id of live) expect([...held.of(id)!]).toEqual([HANDOFFS]);
    expect(held.sessions).toBe(100);
  });

  it('sessions that come and go leave as many held as hold at once', () => {
    const held = new LegacySubscriptions((id) => sessionHolds(t.room, id));
    for (let i = 0; i < 300; i++) {
      const id = session('alice');
      held.subscribe(id, ARTIFACT);
      revokeSession(t.room, LOCAL_OPERATOR, { session_id: id });
    }
    expect(held.sessions).toBeLessThanOrEqual(64);
  });
});

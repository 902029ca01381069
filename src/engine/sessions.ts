import type { InputOf } from '../../generated/operations.js';
import * as crypto from 'node:crypto';
import capability from '../../schemas/domain/capability.json' with { type: 'json' };
import type {
  Caller,
  Capability,
  Event,
  Session,
  SessionCreateOutput,
  SessionGetOutput,
  SessionListOutput,
  SessionOutput,
} from '../../generated/types.js';
import type { SessionRow } from '../store/rows.js';
import { actorName, LOCAL_OPERATOR, type Actor } from './access.js';
import { toTimestamp } from './clock.js';
import { DomainError } from '../errors.js';
import { isParticipant } from './participants.js';
import { change, type Room } from './room.js';
import { cachedSession, cacheSession, forgetSession } from './session-cache.js';
import { asksFourEyes } from './settings.js';

/** 256 random bits. Only its SHA-256 is stored: a high-entropy token needs no slow hash. */
const newToken = (): string => `cr_${crypto.randomBytes(32).toString('base64url')}`;
const newSessionId = (): string => `se_${crypto.randomBytes(9).toString('base64url')}`;
/** SHA-256 in hex; crypto.hash (Node 20.12 and later) makes no Hash object, which every request would pay for. */
export const hashToken: (token: string) => string =
  typeof crypto.hash === 'function'
    ? (token) => crypto.hash('sha256', token, 'hex')
    : (token) => crypto.createHash('sha256').update(token, 'utf8').digest('hex');

const toSession = (row: SessionRow): Session => ({
  session_id: row.id,
  participant: row.participant,
  capabilities: JSON.parse(row.capabilities_json) as Capability[],
  created_at: toTimestamp(row.created_at),
  expires_at: row.expires_at === null ? null : toTimestamp(row.expires_at),
  revoked_at: row.revoked_at === null ? null : toTimestamp(row.revoked_at),
});

/** A session for a participant; the token is in this answer and nowhere else. */
export function createSession(room: Room, actor: Actor, args: InputOf<'createSession'>): SessionCreateOutput {
  return change(room, ({ now, record }) => {
    if (!isParticipant(room, args.participant)) {
      throw new DomainError('not_found', `${args.participant} is not a participant of this room`);
    }
    const token = newToken();
    const row = {
      id: newSessionId(),
      token_hash: hashToken(token),
      participant: args.participant,
      capabilities_json: JSON.stringify(args.capabilities),
      created_at: now,
      expires_at: args.expires_in_seconds === undefined ? null : now + args.expires_in_seconds * 1000,
    };
    room.workspace.insertSession(row);
    record({
      type: 'session.created',
      actor: actorName(actor),
      handoffId: null,
      taskId: null,
      payload: { session_id: row.id, participant: row.participant, capabilities: args.capabilities },
    });
    return { session: toSession({ ...row, revoked_at: null }), token };
  });
}

/** A session a client may still use: not revoked, not expired. */
const isLive = (row: SessionRow, now: number): boolean =>
  row.revoked_at === null && (row.expires_at === null || row.expires_at > now);

export function listSessions(room: Room, actor: Actor, args: InputOf<'listSessions'>): SessionListOutput {
  const now = room.clock.now();
  const rows = room.workspace.listSessions(args.participant ?? null);
  // A room kept for months holds every token ever made: live ones are those a client may still use.
  return { sessions: (args.live ? rows.filter((row) => isLive(row, now)) : rows).map(toSession) };
}

export function revokeSession(room: Room, actor: Actor, args: InputOf<'revokeSession'>): SessionOutput {
  return change(room, ({ now, record }) => {
    const row = room.workspace.getSession(args.session_id);
    if (!row) throw new DomainError('not_found', `unknown session ${args.session_id}`);
    if (row.revoked_at !== null) throw new DomainError('conflict', `session ${row.id} is already revoked`);
    room.workspace.revokeSession(row.id, now);
    forgetSession(room, row.token_hash); // refused from the next request on, even if this change rolled back
    record({
      type: 'session.revoked',
      actor: actorName(actor),
      handoffId: null,
      taskId: null,
      payload: { session_id: row.id, participant: row.participant },
    });
    return { session: toSession({ ...row, revoked_at: now }) };
  });
}

const EVERY_CAPABILITY = capability.enum as Capability[];

/**
 * Who the caller is and what it may do. Any caller may ask, whatever its
 * capabilities, so a client can offer only the actions the room would allow.
 * The local operator has no participant and every capability; acting as a
 * participant (no session row) it is that participant with what actAs gives.
 */
export function getSession(room: Room, actor: Actor, _args: InputOf<'getSession'>): SessionGetOutput {
  const four_eyes = asksFourEyes(room);
  if (actor === LOCAL_OPERATOR) return { participant: null, capabilities: EVERY_CAPABILITY, session: null, four_eyes };
  const sessionId = (actor as { session_id?: unknown }).session_id;
  const row = typeof sessionId === 'string' ? room.workspace.getSession(sessionId) : undefined;
  return {
    participant: actor.participant,
    capabilities: [...actor.capabilities],
    session: row ? toSession(row) : null,
    four_eyes,
  };
}

/**
 * A token refused. Every refusal reads the same to the client, so a token's
 * state is not revealed; `why` is for the room's own log (the request line),
 * where an operator asks why an agent gets 401s. Made when needed: an
 * error's stack costs.
 */
export class Unauthenticated extends DomainError {
  constructor(readonly why: string) {
    super('unauthorized', 'a valid session token is required (Authorization: Bearer <token>)');
  }
}

const refused = (why: string) => new Unauthenticated(why);

/** Why a session's token no longer opens it. */
function whyNotLive(room: Room, row: SessionRow): string | null {
  if (!isLive(row, room.clock.now())) {
    return `session ${row.id} (${row.participant}) ${row.revoked_at !== null ? 'revoked' : 'expired'}`;
  }
  if (!isParticipant(room, row.participant)) return `session ${row.id}: participant ${row.participant} removed`;
  return null;
}

/**
 * The caller a bearer token stands for, checked on every request: a revoked
 * or expired session, or a removed participant, is refused from then on.
 * The writer keeps the sessions it has checked (session-cache.ts): revoking
 * and removing forget them at once, and expiry is checked on every use.
 */
export function authenticate(room: Room, token: string | undefined): Caller & { session_id: string } {
  if (!token) throw refused('no token');
  return authenticateTokenHash(room, hashToken(token));
}

/** authenticate, for a door that has already hashed the token (to compare it with the operator's). */
export function authenticateTokenHash(room: Room, tokenHash: string): Caller & { session_id: string } {
  const cached = cachedSession(room, tokenHash);
  if (cached) {
    if (cached.expiresAt === null || cached.expiresAt > room.clock.now()) return cached.caller;
    forgetSession(room, tokenHash);
  }
  const row = room.workspace.getSessionByTokenHash(tokenHash);
  if (!row) throw refused('a token of no session');
  const why = whyNotLive(room, row);
  if (why !== null) throw refused(why);
  // Frozen: the same caller answers every request of this session while it is kept.
  const caller = Object.freeze({
    participant: row.participant,
    capabilities: Object.freeze(JSON.parse(row.capabilities_json)) as Capability[],
    session_id: row.id,
  });
  cacheSession(room, tokenHash, { caller, expiresAt: row.expires_at });
  return caller;
}

/**
 * Which live sessions a committed event ends: one session (revoked), or
 * every session of a participant (removed). Streams a session holds close on
 * it (src/http/mcp/streams.ts); its requests are refused from then on anyway.
 */
export function sessionsEndedBy(event: Event): { session_id: string } | { participant: string } | null {
  const payload = event.payload as Record<string, unknown>;
  if (event.type === 'session.revoked' && typeof payload.session_id === 'string') {
    return { session_id: payload.session_id };
  }
  if (event.type === 'participant.removed' && typeof payload.name === 'string') return { participant: payload.name };
  return null;
}

/** Whether a session still opens: there is one, neither revoked nor expired, and its participant is still in the room. */
export function sessionHolds(room: Room, sessionId: string): boolean {
  const row = room.workspace.getSession(sessionId);
  return row !== undefined && whyNotLive(room, row) === null;
}

/** When a session expires (ms since the epoch), or null when it does not; undefined when there is no such session. */
export function sessionExpiresAt(room: Room, sessionId: string): number | null | undefined {
  return room.workspace.getSession(sessionId)?.expires_at;
}

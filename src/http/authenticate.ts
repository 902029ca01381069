import type Koa from 'koa';
import { actAs, authenticate, LOCAL_OPERATOR, type Actor, type Room } from '../engine/index.js';
import { sameToken } from './runtime-file.js';

export function bearerToken(ctx: Koa.Context): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];
}

/**
 * Who a REST request is: a session (the usual case), or the local operator
 * holding the running room's operator token, who may act as a participant by
 * naming it in the Commonroom-Participant header. The name is percent-encoded
 * as in a URL, so any name travels (ce sends every name so) and the engine's
 * actAs alone says whether it is a participant; a participant's own name
 * reads the same encoded or not. A header given, even empty, names one.
 */
export function restActor(room: Room, operatorToken: string | null) {
  return (ctx: Koa.Context): Actor => {
    const token = bearerToken(ctx);
    if (operatorToken !== null && token !== undefined && sameToken(token, operatorToken)) {
      const named = ctx.headers['commonroom-participant'];
      return named === undefined ? LOCAL_OPERATOR : actAs(room, percentDecoded(String(named)));
    }
    return authenticate(room, token);
  };
}

/** `z%C3%AB` → `zë`; text that is not percent-encoding stays as it is. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

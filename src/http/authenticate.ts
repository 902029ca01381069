import type Koa from 'koa';
import { actAs, authenticate, LOCAL_OPERATOR, type Actor, type Room } from '../engine/index.js';
import { sameToken } from './runtime-file.js';

export function bearerToken(ctx: Koa.Context): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];
}

/**
 * Who a REST request is: a session (the usual case), or the local operator
 * holding the running room's operator token, who may act as a participant by
 * naming it in the Commonroom-Participant header.
 */
export function restActor(room: Room, operatorToken: string | null) {
  return (ctx: Koa.Context): Actor => {
    const token = bearerToken(ctx);
    if (operatorToken !== null && token !== undefined && sameToken(token, operatorToken)) {
      const participant = ctx.get('commonroom-participant');
      return participant ? actAs(room, participant) : LOCAL_OPERATOR;
    }
    return authenticate(room, token);
  };
}

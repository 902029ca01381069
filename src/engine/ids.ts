import { randomBytes, randomUUID } from 'node:crypto';

/** 128 random bits, URL-safe: ids are opaque and not guessable, though never authorization. */
const random128 = (): string => randomBytes(16).toString('base64url');

export const newHandoffId = (): string => `ho_${random128()}`;
export const newTaskId = (): string => `tk_${random128()}`;
export const newCorrelationId = (): string => randomUUID();
export const newInputKey = (): string => `in_${randomBytes(9).toString('base64url')}`;

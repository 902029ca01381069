import contentType from 'content-type';
import type Koa from 'koa';
import getRawBody from 'raw-body';
import { OutsideJsonError, parseOutsideJson } from '../../outside-json.js';
import { Refusal } from '../refusal.js';

/**
 * The design's limit of a request body. The largest input (a proposed text
 * of 512 KiB, schemas/domain/artifact-text.json) fits in it with its
 * envelope, so a size limit is named by the engine, field and limit.
 */
export const MAX_BODY_BYTES = 1024 * 1024;

const RPC_PARSE_ERROR = -32700;
const RPC_INVALID_REQUEST = -32600;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** application/json or any `+json` type; a charset, if given, must be UTF-8 (RFC 8259). */
function isJsonType(header: string): boolean {
  let parsed: contentType.ParsedMediaType;
  try {
    parsed = contentType.parse(header);
  } catch {
    return false;
  }
  if (parsed.type !== 'application/json' && !parsed.type.endsWith('+json')) return false;
  const charset = parsed.parameters.charset?.toLowerCase();
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

/**
 * Reads a request body into ctx.state.body: refused over the limit (413,
 * before anything is parsed), when it is not JSON by its content type
 * (415), not UTF-8 or not valid JSON, or holding a prototype key (400).
 * No body leaves ctx.state.body undefined.
 */
export function readJsonBody(limit = MAX_BODY_BYTES): Koa.Middleware {
  // The rest of the body is never read, so the connection cannot carry another request: it closes after the answer.
  const tooLarge = () =>
    new Refusal(413, 'too_large', `the request body is larger than ${limit} bytes`, RPC_INVALID_REQUEST, {
      Connection: 'close',
    });
  return async (ctx, next) => {
    if (Number(ctx.get('content-length') || 0) > limit) throw tooLarge();
    let raw: Buffer;
    try {
      raw = await getRawBody(ctx.req, { limit });
    } catch (error) {
      if ((error as { type?: string }).type === 'entity.too.large') throw tooLarge();
      throw new Refusal(400, 'invalid_input', 'the request body could not be read', RPC_INVALID_REQUEST);
    }
    if (raw.length > 0) {
      const given = ctx.get('content-type');
      if (!isJsonType(given)) {
        throw new Refusal(
          415,
          'unsupported_media_type',
          `the request body must be sent as Content-Type: application/json${given ? ` (it was ${given})` : ' (none was given)'}`,
          RPC_INVALID_REQUEST,
          { 'Accept-Post': 'application/json' },
        );
      }
      let text: string;
      try {
        text = utf8.decode(raw);
      } catch {
        throw new Refusal(400, 'invalid_input', 'the request body is not valid UTF-8', RPC_PARSE_ERROR);
      }
      try {
        ctx.state.body = parseOutsideJson(text, 'the request body');
      } catch (error) {
        if (!(error instanceof OutsideJsonError)) throw error;
        throw new Refusal(400, 'invalid_input', error.message, RPC_PARSE_ERROR);
      }
    }
    await next();
  };
}

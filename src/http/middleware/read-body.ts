import type { IncomingMessage } from 'node:http';
import contentType from 'content-type';
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
const RPC_INVALID_PARAMS = -32602;

/** The JSON-RPC code of each way a body's JSON is refused: not JSON at all, or JSON the room does not take. */
const RPC_CODE_OF: Record<OutsideJsonError['kind'], number> = {
  malformed: RPC_PARSE_ERROR,
  forbidden_key: RPC_PARSE_ERROR,
  too_deep: RPC_INVALID_REQUEST,
  invalid_unicode: RPC_INVALID_PARAMS,
};

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
 * How much of a refused body the room reads and drops so that the client
 * gets its 413: closing a connection while the client still sends makes the
 * client's system reset it, and the answer is often lost with it. Beyond
 * this, or after DISCARD_MS, the room closes anyway.
 */
const DISCARD_BYTES = 16 * 1024 * 1024;
const DISCARD_MS = 5_000;

/** Reads and drops the rest of a request body; true when it ended within `maxBytes` and DISCARD_MS. */
function discardRest(req: IncomingMessage, maxBytes: number): Promise<boolean> {
  if (req.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    let seen = 0;
    const done = (ended: boolean) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onFailure).off('close', onFailure);
      if (!ended) req.pause();
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) done(false);
    };
    const onEnd = () => done(true);
    const onFailure = () => done(false);
    const timer = setTimeout(() => done(false), DISCARD_MS);
    req.on('data', onData).once('end', onEnd).once('error', onFailure).once('close', onFailure);
    req.resume();
  });
}

/**
 * Reads a request's JSON body: refused over the limit (413, before anything
 * is parsed), when it is not JSON by its content type (415), not UTF-8 or
 * not valid JSON, holding a prototype key, nested too deep, or holding a
 * string that is not valid Unicode (400). Undefined when there is none.
 */
export async function readJsonBodyOf(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const tooLarge = (drained: boolean) =>
    new Refusal(
      413,
      'too_large',
      `the request body is larger than ${limit} bytes`,
      RPC_INVALID_REQUEST,
      // A body not read to its end leaves the connection unable to carry another request.
      drained ? {} : { Connection: 'close' },
    );
  const declared = Number(req.headers['content-length'] || 0);
  // No body (Content-Length 0, or neither header: RFC 9112, 6.3): nothing to wait for.
  if (declared === 0 && req.headers['transfer-encoding'] === undefined) return undefined;
  if (declared > limit) throw tooLarge(declared <= DISCARD_BYTES && (await discardRest(req, DISCARD_BYTES)));
  let raw: Buffer;
  try {
    raw = await getRawBody(req, { limit });
  } catch (error) {
    if ((error as { type?: string }).type === 'entity.too.large') {
      throw tooLarge(await discardRest(req, DISCARD_BYTES - limit));
    }
    throw new Refusal(400, 'invalid_input', 'the request body could not be read', RPC_INVALID_REQUEST);
  }
  if (raw.length === 0) return undefined;
  // A body the client compressed would be read as its compressed bytes: 400 "not UTF-8" for gzip, or, for a
  // coding that leaves it readable, taken as it is. The room takes none, and says so.
  const coding = req.headers['content-encoding']?.trim().toLowerCase();
  if (coding && coding !== 'identity') {
    throw new Refusal(
      415,
      'unsupported_media_type',
      `the request body must be sent uncompressed (it was Content-Encoding: ${req.headers['content-encoding']})`,
      RPC_INVALID_REQUEST,
      { 'Accept-Encoding': 'identity' },
    );
  }
  const given = req.headers['content-type'] ?? '';
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
    return parseOutsideJson(text, 'the request body');
  } catch (error) {
    if (!(error instanceof OutsideJsonError)) throw error;
    throw new Refusal(400, 'invalid_input', error.message, RPC_CODE_OF[error.kind]);
  }
}

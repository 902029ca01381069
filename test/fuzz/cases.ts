// What a fuzz case is, the world the generators draw real ids and tokens
// from, and the small helpers both doors' builders share.
import fc from 'fast-check';
import type { Expectation } from './answer-rules.js';
import type { FuzzRoom } from './fuzz-room.js';
import type { WireRequest } from './wire.js';

export interface FuzzCase {
  /** The class of input, to count and to name in a failure. */
  kind: string;
  request: WireRequest;
  expect: Expectation;
  /** A stream answer is read up to its first event (subscriptions/listen acknowledges at once). */
  firstEvent?: boolean;
  /** After this request, another on the same connection must still be answered. */
  followUp?: boolean;
}

/** What generators may use of the room: its real ids and tokens. */
export type FuzzWorld = Pick<FuzzRoom, 'tokens' | 'refused' | 'operatorToken' | 'ids' | 'ownOrigin'>;

export type Headers = [string, string][];

/** The headers with `name` (any case) removed, then `values` added under it. */
export function withHeader(headers: Headers, name: string, ...values: string[]): Headers {
  const lower = name.toLowerCase();
  return [...headers.filter(([n]) => n.toLowerCase() !== lower), ...values.map((v): [string, string] => [lower, v])];
}

export const MIB = 1024 * 1024;

/** Media types that are JSON (application/json or a +json type, any parameters, any case). */
export const JSON_MEDIA_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'Application/JSON',
  'application/vnd.commonroom+json',
  'application/problem+json',
];

/** Media types that are not JSON: a body sent with one of these (or none) is refused with 415. */
export const NOT_JSON_MEDIA_TYPES = [
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'text/json',
  'application/jsonx',
  'application/json-patch',
  'json',
  '*/*',
  'application/*',
  '=?base64?YXBwbGljYXRpb24vanNvbg==?=',
];

/**
 * Origins that are not one of the room's names (127.0.0.1, localhost, [::1]
 * with its port): refused with 403. `http://localhost:PORT` is the room too.
 */
export const foreignOrigins = (world: FuzzWorld): string[] => {
  const own = new URL(world.ownOrigin);
  return [
    'http://evil.example',
    'null',
    `http://${own.hostname}.evil.example:${own.port}`,
    `${world.ownOrigin}.evil.example`,
    `http://${own.hostname}:${Number(own.port) + 1}`,
    `http://localhost:${Number(own.port) + 1}`,
  ];
};

/**
 * A case with one to three more raw changes to its request (a header
 * dropped or doubled, another method, bytes flipped, junk on the path): the
 * answer must still keep the general rules.
 */
export function chaos(cases: fc.Arbitrary<FuzzCase>, world: FuzzWorld): fc.Arbitrary<FuzzCase> {
  type Change = (request: WireRequest) => fc.Arbitrary<WireRequest>;
  const changes: Change[] = [
    (r) =>
      r.headers.length === 0
        ? fc.constant(r)
        : fc.nat(r.headers.length - 1).map((i) => ({ ...r, headers: r.headers.filter((_, j) => j !== i) })),
    (r) =>
      r.headers.length === 0
        ? fc.constant(r)
        : fc.nat(r.headers.length - 1).map((i) => ({ ...r, headers: [...r.headers, r.headers[i]!] })),
    (r) =>
      fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS').map((method) => ({ ...r, method })),
    (r) =>
      !r.body || r.body.length === 0
        ? fc.constant(r)
        : fc.tuple(fc.nat(r.body.length - 1), fc.integer({ min: 0, max: 255 })).map(([at, byte]) => {
            const body = Buffer.from(r.body!);
            body[at] = byte;
            return { ...r, body };
          }),
    (r) =>
      fc
        .constantFrom('/', '/..', '%00', '?x=%ff', '#x', '/x', ';x', '%2F')
        .map((junk) => ({ ...r, path: r.path + junk })),
    (r) =>
      fc
        .constantFrom(world.ownOrigin, 'http://evil.example', 'null')
        .map((origin) => ({ ...r, headers: withHeader(r.headers, 'origin', origin) })),
    (r) => fc.boolean().map((chunked) => ({ ...r, chunked: chunked && r.body !== undefined })),
    (r) =>
      fc.constantFrom('authorization', 'content-type', 'mcp-method', 'mcp-name', 'mcp-protocol-version').chain((name) =>
        fc
          .oneof(
            fc.string({ maxLength: 20 }).map((v) => v.replace(/[^\x20-\x7e]/g, '').trim()),
            fc.constant('=?base64?=?='),
          )
          .map((v) => ({ ...r, headers: withHeader(r.headers, name, v) })),
      ),
  ];
  return fc.tuple(cases, fc.array(fc.constantFrom(...changes), { minLength: 1, maxLength: 3 })).chain(([c, picked]) =>
    picked
      .reduce<fc.Arbitrary<WireRequest>>((request, change) => request.chain(change), fc.constant(c.request))
      .map((request): FuzzCase => ({
        kind: `chaos (${c.kind})`,
        request,
        expect: { is: 'any' },
        firstEvent: c.firstEvent,
        followUp: true,
      })),
  );
}

/** Bytes past the 1 MiB body limit: a few, or so many the rest cannot sit in socket buffers. */
export const overLimit: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: 1, max: 64 * 1024 }),
  fc.integer({ min: MIB / 2, max: 2 * MIB }),
);

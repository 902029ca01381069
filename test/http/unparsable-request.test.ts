// Requests Node's HTTP parser refuses never reach the app; the room still
// answers them as problem+json and closes the connection.
import { maxHeaderSize } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.stop());

/** Writes raw bytes and reads until the server closes the connection. */
function raw(bytes: Buffer): Promise<string> {
  const { hostname, port } = new URL(s.http.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

it.each([
  [
    'a byte beyond ASCII in the request target',
    Buffer.from('GET /workspace/handoffs/\x85 HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1'),
  ],
  ['a header line without a colon', Buffer.from('GET /workspace/artifact HTTP/1.1\r\nHost: x\r\nbroken\r\n\r\n')],
  ['a method HTTP does not know', Buffer.from('FROB /mcp HTTP/1.1\r\nHost: x\r\n\r\n')],
])('%s: 400 problem+json, then the connection closes', async (_, bytes) => {
  const answer = await raw(bytes);
  const [head, body] = answer.split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
  expect(head).toMatch(/\r\nContent-Type: application\/problem\+json\r\n/i);
  expect(head).toMatch(/\r\nConnection: close/i);
  expect(JSON.parse(body!)).toEqual({
    type: 'about:blank',
    title: 'Bad Request',
    status: 400,
    detail: 'the request is not valid HTTP/1.1',
    code: 'invalid_input',
  });
});

it('HEAD with a byte beyond ASCII in the target: 400 problem+json without a body', async () => {
  const answer = await raw(Buffer.from('HEAD /workspace/handoffs/\x85 HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1'));
  expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
  expect(answer).toMatch(/\r\nContent-Type: application\/problem\+json\r\n/i);
  expect(answer.endsWith('\r\n\r\n')).toBe(true);
});

it('headers larger than node takes: 431 problem+json with the room’s code for a size limit', async () => {
  const answer = await raw(
    Buffer.from(`GET /workspace/artifact HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
  );
  const [head, body] = answer.split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  expect(head).toMatch(/\r\nContent-Type: application\/problem\+json\r\n/i);
  expect(JSON.parse(body!)).toEqual({
    type: 'about:blank',
    title: 'Request Header Fields Too Large',
    status: 431,
    detail: `the request's headers are larger than ${maxHeaderSize} bytes in all`,
    code: 'too_large',
  });
});

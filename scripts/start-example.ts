// npm start: runs a room on a copy of examples/welcome.md (in .room/, or
// ROOM_DIR, so the bundled file stays as shipped) and prints the MCP and REST
// URLs and a session token that can read, write and approve, the same at
// every start. PORT picks the port.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Capability } from '../generated/types.js';
import {
  authenticate,
  isDomainError,
  LOCAL_OPERATOR,
  runOperation,
  type Room,
} from '../src/engine/index.js';
import { parseOutsideJson } from '../src/outside-json.js';
import { writeFileDurably } from '../src/store/durable-file.js';
import { portNumber } from '../src/cli/options.js';
import { CommandFailure, reportFailure } from '../src/cli/output.js';
import { startServing, untilSignal, type ServeSettings } from '../src/cli/serve.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = path.join(process.env.ROOM_DIR ?? path.join(root, '.room'), 'welcome.md');
if (!existsSync(file)) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileDurably(file, readFileSync(path.join(root, 'examples', 'welcome.md')), {
    temp: `${file}.partial`,
    mode: 0o644,
    as: 'new',
  });
}

let port = 7420;
if (process.env.PORT !== undefined) {
  try {
    port = portNumber(process.env.PORT);
  } catch {
    process.stderr.write(
      `npm start: PORT must be a port number from 0 to 65535 (got ${JSON.stringify(process.env.PORT)})\n`,
    );
    process.exit(2);
  }
}
const settings: ServeSettings = { host: '127.0.0.1', port, allowOrigin: [], allowHost: [], json: false };
let serving;
try {
  serving = await startServing(file, settings);
} catch (error) {
  // The usual port is taken: any free one. A port asked for by name is reported as taken.
  if (!(error instanceof CommandFailure && error.code === 'port_in_use' && process.env.PORT === undefined)) {
    process.exitCode = reportFailure(error, false);
    process.exit();
  }
  serving = await startServing(file, { ...settings, port: 0 });
}

/** The example's two sessions: made at the first start, kept beside the room (owner-only) and reused after. */
const SESSIONS = {
  you: ['read', 'write', 'approve'],
  agent: ['read', 'write'],
} as const satisfies Record<string, readonly Capability[]>;
const tokensFile = path.join(path.dirname(file), 'example-tokens.json');

function savedTokens(): Record<string, string> {
  try {
    const saved = parseOutsideJson(readFileSync(tokensFile, 'utf8'), tokensFile);
    return typeof saved === 'object' && saved !== null ? (saved as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** A saved token that still stands for the participant, or a new session's. */
function tokenFor(room: Room, name: keyof typeof SESSIONS, saved: string | undefined): string {
  if (saved !== undefined) {
    try {
      if (authenticate(room, saved).participant === name) return saved;
    } catch {
      // revoked, expired or unknown: make a new one
    }
  }
  try {
    runOperation(room, LOCAL_OPERATOR, 'addParticipant', { name });
  } catch (error) {
    if (!isDomainError(error) || error.code !== 'conflict') throw error; // already there from an earlier start
  }
  return runOperation(room, LOCAL_OPERATOR, 'createSession', { participant: name, capabilities: [...SESSIONS[name]] }).token;
}

// Ready for the signal before printing: a stop may come the moment the tokens are read.
const stopped = untilSignal(serving);
const saved = savedTokens();
const tokens = { you: tokenFor(serving.room, 'you', saved.you), agent: tokenFor(serving.room, 'agent', saved.agent) };
writeFileDurably(tokensFile, Buffer.from(`${JSON.stringify(tokens, null, 2)}\n`), {
  temp: `${tokensFile}.partial`,
  mode: 0o600,
  as: 'replace',
});

process.stdout.write(
  [
    `Common Room is serving ${file}`,
    '',
    `  MCP URL:  ${serving.http.mcpUrl}`,
    `  REST:     ${serving.http.restUrl}/…  (the routes: ${serving.http.baseUrl}/docs)`,
    `  page:     ${serving.http.baseUrl}/#token=${tokens.you}    (the room's page, as "you")`,
    `  token:    ${tokens.you}    (participant "you": read, write, approve)`,
    `  agent:    ${tokens.agent}    (participant "agent": read, write)`,
    '',
    'Point an MCP client (protocol 2026-07-28) at the URL with the header',
    `  Authorization: Bearer ${tokens.you}`,
    `The tokens are kept in ${tokensFile} and used again at the next start. Stop with Ctrl-C.`,
    '',
  ].join('\n'),
);
await stopped;

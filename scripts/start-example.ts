// npm start: runs a room on a copy of examples/welcome.md (in .room/, or
// ROOM_DIR, so the bundled file stays as shipped) and prints the MCP URL and
// a session token that can read, write and approve. PORT picks the port.
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { addParticipant, createSession, isDomainError, LOCAL_OPERATOR } from '../src/engine/index.js';
import { startServing, untilSignal, type ServeSettings } from '../src/cli/serve.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = path.join(process.env.ROOM_DIR ?? path.join(root, '.room'), 'welcome.md');
if (!existsSync(file)) {
  mkdirSync(path.dirname(file), { recursive: true });
  copyFileSync(path.join(root, 'examples', 'welcome.md'), file);
}

const settings: ServeSettings = {
  host: '127.0.0.1',
  port: Number(process.env.PORT ?? 7420),
  allowOrigin: [],
  json: false,
};
let serving;
try {
  serving = await startServing(file, settings);
} catch (error) {
  if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
  serving = await startServing(file, { ...settings, port: 0 }); // the usual port is taken: any free one
}

for (const name of ['you', 'agent']) {
  try {
    addParticipant(serving.room, LOCAL_OPERATOR, { name });
  } catch (error) {
    if (!isDomainError(error) || error.code !== 'conflict') throw error; // already there from an earlier start
  }
}
const you = createSession(serving.room, LOCAL_OPERATOR, {
  participant: 'you',
  capabilities: ['read', 'write', 'approve'],
});
const agent = createSession(serving.room, LOCAL_OPERATOR, { participant: 'agent', capabilities: ['read', 'write'] });

process.stdout.write(
  [
    `Common Room is serving ${file}`,
    '',
    `  MCP URL:  ${serving.http.mcpUrl}`,
    `  token:    ${you.token}    (participant "you": read, write, approve)`,
    `  agent:    ${agent.token}    (participant "agent": read, write)`,
    '',
    'Point an MCP client (protocol 2026-07-28) at the URL with the header',
    `  Authorization: Bearer ${you.token}`,
    'Tokens are shown once; each start makes new ones. Stop with Ctrl-C.',
    '',
  ].join('\n'),
);
await untilSignal(serving);

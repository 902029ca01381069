// npm start: runs a room on a copy of examples/welcome.md (in .room/, or
// ROOM_DIR, so the bundled file stays as shipped) and prints the MCP URL and
// a session token that can read, write and approve. PORT picks the port.
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { addParticipant, createSession, isDomainError, LOCAL_OPERATOR } from '../src/engine/index.js';
import { portNumber } from '../src/cli/options.js';
import { CommandFailure, reportFailure } from '../src/cli/output.js';
import { startServing, untilSignal, type ServeSettings } from '../src/cli/serve.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = path.join(process.env.ROOM_DIR ?? path.join(root, '.room'), 'welcome.md');
if (!existsSync(file)) {
  mkdirSync(path.dirname(file), { recursive: true });
  copyFileSync(path.join(root, 'examples', 'welcome.md'), file);
}

let port = 7420;
if (process.env.PORT !== undefined) {
  try {
    port = portNumber(process.env.PORT);
  } catch {
    process.stderr.write(`npm start: PORT must be a port number from 0 to 65535 (got ${JSON.stringify(process.env.PORT)})\n`);
    process.exit(2);
  }
}
const settings: ServeSettings = { host: '127.0.0.1', port, allowOrigin: [], json: false };
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

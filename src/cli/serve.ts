// ce serve FILE: the room process. It is the sidecar's one writer, serves
// MCP on /mcp, runs the expiry sweep and watches the file, and stops
// cleanly on SIGINT/SIGTERM: every stream gets its last word, then exit 0.
import path from 'node:path';
import type { Command } from 'commander';
import type { Room } from '../engine/index.js';
import type { RoomServer } from '../http/server.js';
import { loadEngine, openForWriting } from './executor.js';
import { command, FILE_ARGUMENT, list, portNumber } from './options.js';
import { CommandFailure } from './output.js';
import { notTextNote, requireFile } from './room.js';

export interface ServeSettings {
  host: string;
  port: number;
  allowOrigin: string[];
  json: boolean;
}

export interface Serving {
  room: Room;
  http: RoomServer;
  stop(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** Opens the room for writing and serves it until stop(). */
export async function startServing(file: string, settings: ServeSettings): Promise<Serving> {
  requireFile(file);
  const engine = await loadEngine();
  const { serveRoom } = await import('../http/server.js');
  const room = openForWriting(engine, file, `ce serve ${file}`, true);
  try {
    const recorded = engine.syncArtifact(room); // the initial revision, or an edit made while no room ran
    if (recorded && recorded.source === 'external') {
      process.stderr.write(
        `ce: recorded an edit made while no room ran as revision ${recorded.number}${notTextNote(recorded)}\n`,
      );
    }
    const http = await serveRoom(room, {
      host: settings.host,
      port: settings.port,
      allowedOrigins: settings.allowOrigin,
    }).catch((error: unknown) => {
      throw cannotListen(error, settings);
    });
    return {
      room,
      http,
      async stop() {
        await http.close();
        room.close();
      },
    };
  } catch (error) {
    room.close();
    throw error;
  }
}

/** Why the room cannot listen where it was asked to, in the terms of the flags given. */
function cannotListen(error: unknown, { host, port }: ServeSettings): unknown {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new CommandFailure(
        'port_in_use',
        `port ${port} on ${host} is taken by another program; choose another with --port, or --port 0 for any free one`,
      );
    case 'EACCES':
      return new CommandFailure(
        'port_not_permitted',
        `port ${port} needs privileges this user lacks; choose one above 1023 with --port, or --port 0 for any free one`,
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new CommandFailure('host_not_available', `--host ${host} is not an address of this machine`);
    default:
      return error;
  }
}

/** Stops on SIGINT or SIGTERM and resolves when the room is closed. */
export function untilSignal(serving: Serving): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void serving.stop().then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export function serveCommand(program: Command): void {
  command(program, 'serve', 'run the room process: MCP on /mcp, the expiry sweep, the file watcher')
    .argument(...FILE_ARGUMENT)
    .option('--host <host>', 'address to bind; beyond loopback is an explicit choice', '127.0.0.1')
    .option('--port <port>', 'port to listen on; 0 picks a free one', portNumber, 7420)
    .option('--allow-origin <origins>', 'comma-separated browser origins allowed besides the room’s own', '')
    .addHelpText('after', '\nExample:\n  $ ce serve notes.md --port 0 --json')
    .action(async (file: string, options: { host: string; port: number; allowOrigin: string; json?: boolean }) => {
      const settings: ServeSettings = {
        host: options.host,
        port: options.port,
        allowOrigin: options.allowOrigin ? list(options.allowOrigin) : [],
        json: options.json ?? false,
      };
      const serving = await startServing(file, settings);
      announce(file, serving, settings);
      await untilSignal(serving);
    });
}

function announce(file: string, { room, http }: Serving, settings: ServeSettings): void {
  if (settings.json) {
    process.stdout.write(
      `${JSON.stringify({ mcp_url: http.mcpUrl, rest_url: http.restUrl, artifact: path.resolve(file), sidecar: room.sidecar.path, pid: process.pid })}\n`,
    );
  } else {
    process.stdout.write(
      [
        `Common Room is serving ${path.basename(file)}`,
        `  MCP:     ${http.mcpUrl}`,
        `  REST:    ${http.restUrl}`,
        `  sidecar: ${room.sidecar.path}`,
        'Stop it with Ctrl-C.',
        '',
      ].join('\n'),
    );
  }
  if (!LOOPBACK.has(settings.host) && settings.allowOrigin.length === 0) {
    process.stderr.write(
      `ce: listening on ${settings.host}, beyond loopback: browsers from other origins are refused until --allow-origin names them\n`,
    );
  }
}

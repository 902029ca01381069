// ce serve FILE: the room process. It is the sidecar's one writer, serves
// MCP on /mcp, runs the expiry sweep and watches the file, and stops
// cleanly on SIGINT, SIGTERM or SIGHUP: every request taken is answered
// and every stream gets its last word, then exit 0.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_MAX_STREAMS } from '../http/mcp/stream-kinds.js';
import type { Room } from '../engine/index.js';
import type { RoomServer } from '../http/server.js';
import type { RoomLogger } from '../http/observe/request-log.js';
import { DomainError, isDomainError } from '../errors.js';
import { loadEngine, openForWriting, type Engine } from './executor.js';
import { findRoomProcess } from './remote.js';
import { command, FILE_ARGUMENT, portNumber } from './options.js';
import { notTextNote, requireFile } from './init.js';
import { watchTheDisk } from './disk-watch.js';
import { exposureWarnings } from './serve-exposure.js';
import { cannotListen } from './serve-refusals.js';
import { basePath, collect, collectHosts, positive, tlsOf, type ServeOptions } from './serve-flags.js';
import { logFlags, PLAIN_LOG, serveLog, type LogOptions } from './serve-log.js';
import { LITESTREAM_CHECKPOINT_PAGES } from '../store/litestream.js';
import packageJson from '../../package.json' with { type: 'json' };

export interface ServeSettings {
  host: string;
  port: number;
  allowOrigin: string[];
  /** More names the room answers to (Host): `NAME` for any port, or `NAME:PORT`. */
  allowHost: string[];
  /** The path prefix every route is under (--base-path), normalised; none when undefined or ''. */
  basePath?: string;
  /** Open streams the room holds at once; the default when undefined. */
  maxStreams?: number;
  json: boolean;
  /** A second person decides, whatever the room's settings say. */
  fourEyes?: boolean;
  /** HTTPS with this certificate chain and key (PEM). */
  tls?: { cert: Buffer; key: Buffer };
  /** Where its lines go (--log-level, --log-format); plain warnings only when undefined. */
  log?: RoomLogger;
  /** Prometheus metrics at GET /metrics (--metrics). */
  metrics?: boolean;
}

export interface Serving {
  room: Room;
  http: RoomServer;
  stop(): Promise<void>;
}

/** The engine, the HTTP server and the sidecar's files, loaded at once: one compiles while another is read. */
const loadServing = () => Promise.all([loadEngine(), import('../http/server.js'), import('../store/sidecar-files.js')]);

/** The room opened for writing; one another process serves is refused, saying where it serves. */
async function openToServe(engine: Engine, file: string, fourEyes: boolean): Promise<Room> {
  try {
    return openForWriting(engine, file, `ce serve ${file}`, true, fourEyes);
  } catch (error) {
    if (!isDomainError(error) || error.code !== 'locked') throw error;
    const running = await findRoomProcess(file);
    if (!running) throw error;
    throw new DomainError('locked', `${error.message}; it serves ${running.address.baseUrl}`, error.details);
  }
}

/** Opens the room for writing and serves it until stop(). */
export async function startServing(file: string, settings: ServeSettings): Promise<Serving> {
  const [engine, { serveRoom }, sidecarFiles] = await loadServing();
  if (!existsSync(file) && existsSync(sidecarFiles.sidecarPath(file))) {
    // The file went and its sidecar stayed: the room is all there, and restore writes the file from it.
    throw new DomainError(
      'not_found',
      `${file} does not exist, but its room's sidecar does: ce restore --sidecar ${sidecarFiles.sidecarPath(file)} ${file} writes the file from its latest revision (what is there is kept beside it)`,
    );
  }
  requireFile(file);
  // Checked here, where the validators are loaded (ce's other commands start without them), before the sidecar opens.
  const origin = settings.allowOrigin.find((given) => !engine.isAllowableOrigin(given));
  if (origin !== undefined) {
    throw new InvalidArgumentError(
      `--allow-origin: ${JSON.stringify(origin)} is not a browser origin; give http:// or https://, a host name and perhaps a port, with no path, e.g. https://rooms.example.net`,
    );
  }
  const logger = settings.log ?? PLAIN_LOG;
  // A room that cannot start (its port taken, say) leaves the folder as it was: a sidecar made here goes with it.
  const making = !existsSync(sidecarFiles.sidecarPath(file));
  const room = await openToServe(engine, file, settings.fourEyes === true);
  try {
    const recorded = engine.syncArtifact(room); // the initial revision, or an edit made while no room ran
    if (recorded && recorded.source === 'external') {
      logger.warn(
        { revision: recorded.number },
        `recorded an edit made while no room ran as revision ${recorded.number}${notTextNote(recorded)}`,
      );
    }
    const http = await serveRoom(room, {
      host: settings.host,
      port: settings.port,
      allowedOrigins: settings.allowOrigin,
      allowedHosts: settings.allowHost,
      basePath: settings.basePath,
      ...(settings.maxStreams === undefined ? {} : { maxStreams: settings.maxStreams }),
      ...(settings.tls ? { tls: settings.tls } : {}),
      logger,
      metrics: settings.metrics === true,
    }).catch((error: unknown) => {
      throw cannotListen(error, settings);
    });
    watchTheDisk(room, http, logger);
    // Said once the room serves: a room that could not listen says only why.
    if (room.sidecar.migrated.length > 0) logger.info({ applied: room.sidecar.migrated }, 'sidecar migrated');
    if (making) {
      // A file moved or copied without its sidecar comes up as an empty room: said, where only migrations were.
      logger.info(
        { sidecar: room.sidecar.path },
        `a new room: no sidecar was beside ${path.basename(file)}, so one was made (no participants, sessions or history yet); if the file has a room elsewhere, stop this one and bring that sidecar here`,
      );
    }
    if (room.sidecar.litestream) {
      logger.info(
        { wal_autocheckpoint: LITESTREAM_CHECKPOINT_PAGES },
        `Litestream replicates the sidecar: checkpoints are left to it (the room makes one only past ${LITESTREAM_CHECKPOINT_PAGES} pages of write-ahead log)`,
      );
    }
    logger.info({ version: packageJson.version, url: http.baseUrl, sidecar: room.sidecar.path }, 'room started');
    return {
      room,
      http,
      async stop() {
        await http.close();
        room.close();
        logger.info({}, 'room stopped');
      },
    };
  } catch (error) {
    room.close();
    if (making) sidecarFiles.removeMadeSidecar(file);
    throw error;
  }
}

/**
 * The signals that stop a room cleanly: SIGHUP too, which a room started by
 * hand gets when its terminal or SSH session closes, and which killed it
 * with no last word for its streams and its runtime file left behind.
 */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Stops on SIGINT, SIGTERM or SIGHUP and resolves when the room is closed. */
export function untilSignal(serving: Serving): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      for (const signal of STOP_SIGNALS) process.off(signal, stop);
      void serving.stop().then(resolve);
    };
    for (const signal of STOP_SIGNALS) process.on(signal, stop);
  });
}

export function serveCommand(program: Command): void {
  const serve = command(program, 'serve', 'run the room process: MCP on /mcp, the expiry sweep, the file watcher')
    .argument(...FILE_ARGUMENT)
    .option('--host <host>', 'address to bind; beyond loopback is an explicit choice', '127.0.0.1')
    .option('--port <port>', 'port to listen on; 0 picks a free one', portNumber, 7420)
    .option(
      '--allow-origin <origins>',
      'browser origins allowed besides the room’s own names (comma-separated; repeatable)',
      collect,
      [] as string[],
    )
    .option(
      '--allow-host <name>',
      'another name the room answers to in Host, as NAME (any port) or NAME:PORT, e.g. behind a proxy (comma-separated; repeatable)',
      collectHosts,
      [] as string[],
    )
    .option(
      '--base-path <path>',
      'serve every route under this path, as a proxy routing many rooms by path reaches it, e.g. /rooms/notes',
      basePath,
    )
    .option(
      '--max-streams <n>',
      'open streams (listens, GET /mcp, pages) the room holds at once, all sessions together',
      positive('--max-streams'),
      DEFAULT_MAX_STREAMS,
    )
    .option(
      '--four-eyes',
      'a second person decides: nobody approves or rejects their own proposal, or the result of their own work (besides the room’s setting)',
    )
    .option('--tls-cert <file>', 'serve HTTPS with this certificate (PEM, the chain after it)')
    .option('--tls-key <file>', 'the private key (PEM) of --tls-cert');
  logFlags(serve)
    .addHelpText(
      'after',
      '\nExamples:\n  $ ce serve notes.md --port 0 --json\n  $ ce serve notes.md --host 0.0.0.0 --tls-cert room.crt --tls-key room.key',
    )
    .action(async (file: string, options: ServeOptions & LogOptions) => {
      // The log's modules load beside the room's (startServing finds them loaded).
      const [log] = await Promise.all([serveLog(options), loadServing()]);
      const settings: ServeSettings = {
        host: options.host,
        port: options.port,
        allowOrigin: options.allowOrigin,
        allowHost: options.allowHost,
        basePath: options.basePath,
        maxStreams: options.maxStreams,
        fourEyes: options.fourEyes ?? false,
        json: options.json ?? false,
        ...tlsOf(options),
        log,
        metrics: options.metrics === true,
      };
      const serving = await startServing(file, settings);
      // Ready for the signal before saying where it listens: a stop may come the moment it is read.
      const stopped = untilSignal(serving);
      announce(file, serving, settings);
      await stopped;
    });
}

function announce(file: string, { room, http }: Serving, settings: ServeSettings): void {
  if (settings.json) {
    process.stdout.write(
      `${JSON.stringify({ mcp_url: http.mcpUrl, rest_url: http.restUrl, page_url: `${http.baseUrl}/`, artifact: path.resolve(file), sidecar: room.sidecar.path, pid: process.pid })}\n`,
    );
  } else {
    process.stdout.write(
      [
        `Common Room is serving ${path.basename(file)}`,
        `  MCP:     ${http.mcpUrl}`,
        `  REST:    ${http.restUrl}/… (the routes: ${http.baseUrl}/docs)`,
        `  page:    ${http.baseUrl}/ (sign in: ce open ${file} --participant NAME)`,
        `  sidecar: ${room.sidecar.path}`,
        'Stop it with Ctrl-C.',
        '',
      ].join('\n'),
    );
  }
  const logger = settings.log ?? PLAIN_LOG;
  for (const line of exposureWarnings(settings, Number(new URL(http.baseUrl).port))) logger.warn({}, line);
}

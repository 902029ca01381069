import { X509Certificate } from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { startExpirySweeper, watchArtifact, type Room } from '../engine/index.js';
import { createApp } from './app.js';
import type { AppOptions } from './app-options.js';
import { drainable } from './drain.js';
import { logChanges } from './observe/change-log.js';
import { answerPlainHttp, answerUnparsableRequest } from './client-error.js';
import { newOperatorToken, removeRuntimeFile, writeRuntimeFile } from './runtime-file.js';

export interface RoomServer {
  server: Server;
  /** http://host:port, and the --base-path after it */
  baseUrl: string;
  mcpUrl: string;
  restUrl: string;
  close(): Promise<void>;
}

export interface ServeOptions extends Omit<AppOptions, 'metrics'> {
  /** Prometheus metrics at GET /metrics (observe/room-metrics.ts). */
  metrics?: boolean;
  port?: number;
  /** Serve HTTPS with this certificate chain and key (PEM). */
  tls?: { cert: Buffer; key: Buffer };
}

/** Where a client on this machine reaches a room bound to `host`: the loopback address for an unspecified one. */
export function localAddress(host: string): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return reachable.includes(':') ? `[${reachable}]` : reachable;
}

/** This machine's own addresses, for a room bound to an unspecified one (0.0.0.0: IPv4 only; `::`: all). */
function ownAddresses(host: string): string[] {
  if (host !== '0.0.0.0' && host !== '::') return [];
  return Object.values(networkInterfaces())
    .flat()
    .filter((net) => net !== undefined && (host === '::' || net.family === 'IPv4'))
    .map((net) => net!.address);
}

/** An HTTPS server that answers plain HTTP with a 400 saying to use https (client-error.ts). */
async function httpsServer(tls: { cert: Buffer; key: Buffer }, handler: RequestListener): Promise<Server> {
  const server = (await import('node:https')).createServer({ cert: tls.cert, key: tls.key }, handler);
  answerPlainHttp(server);
  return server;
}

/**
 * Serves a room opened for writing: the HTTP app, the expiry sweep and the
 * artifact watcher; changes share commits while it serves (group-commit.ts). close() stops listening and
 * taking requests, answers those it took and ends every stream gracefully (a listen gets its final response).
 */
export async function serveRoom(room: Room, options: ServeOptions = {}): Promise<RoomServer> {
  const operatorToken = newOperatorToken();
  const host = options.host ?? '127.0.0.1';
  const { metrics, ...appOptions } = options;
  const { handler, streams, names } = createApp(room, {
    ...appOptions,
    ...(metrics === true ? { metrics: await (await import('./observe/room-metrics.js')).roomMetricsMaker() } : {}),
    host,
    interfaceAddresses: options.interfaceAddresses ?? ownAddresses(host),
    operatorToken,
  });
  // node's TLS stack is loaded only for a room that serves HTTPS: a start without it answers sooner.
  const drain = drainable(handler);
  const server = options.tls ? await httpsServer(options.tls, drain.handler) : createServer(drain.handler);
  server.on('clientError', answerUnparsableRequest);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  names.listening(port, options.tls ? 'https' : 'http');
  const baseUrl = `${options.tls ? 'https' : 'http'}://${localAddress(host)}:${port}${options.basePath ?? ''}`;
  try {
    writeRuntimeFile(room.artifactPath, {
      base_url: baseUrl,
      mcp_url: `${baseUrl}/mcp`,
      rest_url: `${baseUrl}/workspace`,
      operator_token: operatorToken,
      ...(options.tls ? { tls_fingerprint256: new X509Certificate(options.tls.cert).fingerprint256 } : {}),
      started_at: new Date().toISOString(),
    });
  } catch (error) {
    // No runtime file, no room: ce on this machine could not reach it as the operator.
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw error;
  }
  // The served room lets the changes of two turns of the event loop share a commit.
  room.commits.start();
  const stopSweeper = startExpirySweeper(room);
  const stopWatcher = watchArtifact(room, (error) =>
    options.logger
      ? options.logger.warn({}, `watching the artifact: ${String(error)}`)
      : process.stderr.write(`ce: watching the artifact: ${String(error)}\n`),
  );
  if (options.logger?.logsInfo) logChanges(room, options.logger);
  let closing: Promise<void> | null = null;
  return {
    server,
    baseUrl,
    mcpUrl: `${baseUrl}/mcp`,
    restUrl: `${baseUrl}/workspace`,
    close() {
      closing ??= (async () => {
        stopSweeper();
        stopWatcher();
        removeRuntimeFile(room.artifactPath);
        // No new connection, and no new request on one kept alive; those taken are answered first.
        const answered = drain.stop();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await streams.closeAll();
        await answered;
        room.commits.stop();
        // Every request has had its answer and every stream its last word: a connection still open (a
        // client's spare keep-alive socket, say) must not hold up the exit.
        server.closeAllConnections();
        await closed;
      })();
      return closing;
    },
  };
}

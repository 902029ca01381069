// ce bridge [FILE --participant NAME | --url URL]: the stdio MCP server
// (bridge.ts), loaded only when this command runs.
import { InvalidArgumentError, type Command } from 'commander';
import participantName from '../../schemas/domain/participant-name.json' with { type: 'json' };
import type { BridgeTarget } from './bridge.js';
import { caFile, mcpEndpointOf, sessionToken } from './connect.js';

interface BridgeOptions {
  url?: string;
  participant?: string;
  tokenFile?: string;
  ca?: string;
}

export function bridgeCommand(program: Command): void {
  program
    .command('bridge')
    .description('a stdio MCP server for hosts that launch one: forwards every message to the room over HTTP')
    .argument('[file]', 'the room file of a room running on this machine (with --participant)')
    .option('--url <url>', "the room's address, on this machine or another (http(s)://host:port)")
    .option('--participant <name>', 'with FILE: act as this participant of the running room')
    .option('--token-file <file>', 'with --url: a file holding the session token (else CE_TOKEN)')
    .option('--ca <file>', 'with --url: trust this CA certificate (PEM) for an https room')
    .addHelpText(
      'after',
      '\nExamples:\n  $ CE_TOKEN=cr_... ce bridge --url https://room.example:7420 --ca ca.pem\n  $ ce bridge notes.md --participant alice',
    )
    .action(async (file: string | undefined, options: BridgeOptions) => {
      const target = await bridgeTarget(file, options);
      const { runBridge } = await import('./bridge.js');
      await runBridge(target);
      process.exit(0);
    });
}

async function bridgeTarget(file: string | undefined, options: BridgeOptions): Promise<() => BridgeTarget> {
  if ((file === undefined) === (options.url === undefined)) {
    const which = file === undefined ? 'neither was given' : 'not both';
    throw new InvalidArgumentError(`give either FILE (a room on this machine) or --url (a room anywhere), ${which}`);
  }
  if (options.url !== undefined) {
    if (options.participant !== undefined) {
      throw new InvalidArgumentError('--participant goes with FILE; with --url the session token says who acts');
    }
    const url = mcpEndpointOf(options.url);
    const token = sessionToken(options.tokenFile);
    const ca = caFile(options.ca);
    return () => ({ url, headers: { Authorization: `Bearer ${token}` }, ...(ca ? { trust: { ca } } : {}) });
  }
  if (options.participant === undefined) {
    throw new InvalidArgumentError('with FILE, --participant names who acts (the room runs on this machine)');
  }
  if (options.tokenFile !== undefined || options.ca !== undefined) {
    throw new InvalidArgumentError('--token-file and --ca go with --url; with FILE the room is on this machine');
  }
  const participant = options.participant;
  // The name travels in a header: one outside the rule for names could never act, and might not even be sent.
  if (participant.length > participantName.maxLength || !new RegExp(participantName.pattern).test(participant)) {
    throw new InvalidArgumentError(
      `--participant ${JSON.stringify(participant)} is not a participant name (a letter or digit first, then letters, digits, '.', '_' or '-'; ${participantName.maxLength} at most)`,
    );
  }
  const { readRuntimeFile } = await import('../http/runtime-file.js');
  return () => {
    const running = readRuntimeFile(file!);
    if (!running) throw new Error(`no room process runs for ${file}: start one with ce serve ${file}`);
    return {
      url: new URL(running.mcp_url),
      headers: { Authorization: `Bearer ${running.operator_token}`, 'Commonroom-Participant': participant },
      ...(running.tls_fingerprint256 ? { trust: { pin: running.tls_fingerprint256 } } : {}),
    };
  };
}

// ce open FILE --participant NAME: signs a person in to the room's page. It
// creates a session through the running room (the page is served by one:
// there is nothing to open without it) and prints the page's address with
// the token in the fragment, which a browser never sends to the server. With
// a desktop (DISPLAY or WAYLAND_DISPLAY) it opens the address too.
import { spawn } from 'node:child_process';
import { InvalidArgumentError, type Command } from 'commander';
import capability from '../../schemas/domain/capability.json' with { type: 'json' };
import { operations, type Operation } from '../../generated/operations.js';
import type { Session, SessionCreateOutput } from '../../generated/types.js';
import { MISSING_PARTICIPANT } from './commands.js';
import { command, capabilityList, durationSeconds, FILE_ARGUMENT } from './options.js';
import { answer, CommandFailure, fields } from './output.js';
import { requireFile } from './init.js';
import { findRoomProcess } from './remote.js';

export interface OpenOutput {
  url: string;
  session: Session;
  /** Whether a browser was asked to open the address. */
  opened: boolean;
}

interface OpenOptions {
  participant?: string;
  caps: string[];
  expiresIn: number;
  json?: boolean;
}

/** The room page's address for a token: the token in the fragment, never sent to the server. */
export const pageAddress = (baseUrl: string, token: string): string =>
  `${baseUrl.replace(/\/$/, '')}/#token=${encodeURIComponent(token)}`;

export function openCommand(program: Command): void {
  command(program, 'open', "sign a participant in to the room's page: a new session and the page's address")
    .argument(...FILE_ARGUMENT)
    .option('--participant <name>', 'the participant the page acts as (required)')
    .option(
      '--caps <capabilities>',
      `comma-separated: ${capability.enum.join(', ')}`,
      capabilityList(capability.enum),
      ['read', 'write', 'approve'],
    )
    .option(
      '--expires-in <duration>',
      'lifetime: seconds, or N with s, m, h or d (15m, 12h, 30d)',
      durationSeconds,
      86_400,
    )
    .addHelpText(
      'after',
      '\nThe room process must be running (ce serve FILE). The address holds the token: give it only to that participant.\n\nExample:\n  $ ce open notes.md --participant alice',
    )
    .action(async (file: string, options: OpenOptions) => {
      if (options.participant === undefined) throw new InvalidArgumentError(MISSING_PARTICIPANT);
      // A page that cannot read shows nothing but that it cannot: no session is made for one.
      if (!options.caps.includes('read')) {
        throw new InvalidArgumentError('--caps: the page needs read, to show the room at all; add read');
      }
      requireFile(file);
      const running = await findRoomProcess(file);
      if (!running) {
        throw new CommandFailure(
          'not_served',
          `no room process serves ${file}, and the page is served by one: start it with ce serve ${file}, then ce open again`,
        );
      }
      const created = (await running.call(
        operations.createSession as Operation,
        { participant: options.participant, capabilities: options.caps, expires_in_seconds: options.expiresIn },
        null,
      )) as SessionCreateOutput;
      const url = pageAddress(running.address.baseUrl, created.token);
      const opened = openInBrowser(url);
      answer<OpenOutput>(options, { url, session: created.session, opened }, (result) => plain(file, result));
    });
}

/** Asks the desktop's browser to open `url`; false without a desktop, or when xdg-open cannot run. */
function openInBrowser(url: string): boolean {
  if (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return false;
  try {
    const child = spawn('xdg-open', [url], { stdio: 'ignore', detached: true });
    child.on('error', () => process.stderr.write('ce: could not run xdg-open; open the address above yourself\n'));
    child.unref();
    return true;
  } catch {
    return false;
  }
}

function plain(file: string, { url, session, opened }: OpenOutput): string {
  return [
    url,
    '',
    fields([
      ['participant', session.participant],
      ['capabilities', session.capabilities.join(',')],
      ['expires', session.expires_at ?? 'never (until revoked)'],
      ['session', session.session_id],
    ]),
    '',
    opened
      ? 'Opened in the browser. The address holds the session token: share it only with this participant.'
      : 'Open it in a browser. The address holds the session token: share it only with this participant.',
    `Revoke it with: ce session revoke ${file} ${session.session_id}`,
  ].join('\n');
}

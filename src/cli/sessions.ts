// ce session create|list|revoke: bearer tokens for participants (PRODUCT.md §3).
// The token is printed once, by `create`; the sidecar keeps only its hash.
import type { Command } from 'commander';
import type { SessionCreateInput, SessionCreateOutput, SessionListOutput } from '../../generated/types.js';
import { reading, writing } from './open-room.js';
import { capabilityList, command, durationSeconds, engineInput, FILE_ARGUMENT } from './options.js';
import { answer, columns, fields, orDash, type JsonOption } from './output.js';

export function sessionCommands(program: Command): void {
  const session = program.command('session').description('create, list or revoke the sessions of a room');

  command(session, 'create', 'create a session for a participant and print its token, once')
    .argument(...FILE_ARGUMENT)
    .requiredOption('--participant <name>', 'the participant the session acts as')
    .requiredOption('--caps <capabilities>', 'comma-separated: read, write, approve, admin', capabilityList)
    .option('--expires-in <duration>', 'lifetime: seconds, or N with s, m, h or d (15m, 12h, 30d)', durationSeconds)
    .addHelpText(
      'after',
      '\nExample:\n  $ ce session create notes.md --participant alice --caps read,write --expires-in 30d',
    )
    .action(
      async (
        file: string,
        options: JsonOption & { participant: string; caps: string[]; expiresIn?: number },
      ) => {
        const input = engineInput<SessionCreateInput>({
          participant: options.participant,
          capabilities: options.caps,
          expires_in_seconds: options.expiresIn,
        });
        const result = await writing(
          file,
          'ce session create',
          (room, engine) => engine.createSession(room, engine.LOCAL_OPERATOR, input),
          { remote: (running) => running.call('createSession', input) },
        );
        answer(options, result, plainCreated);
      },
    );

  command(session, 'list', 'list sessions, newest first (tokens are never shown)')
    .argument(...FILE_ARGUMENT)
    .option('--participant <name>', 'only the sessions of this participant')
    .addHelpText('after', '\nExample:\n  $ ce session list notes.md --participant alice')
    .action(async (file: string, options: JsonOption & { participant?: string }) => {
      const result = await reading(file, (room, engine) =>
        engine.listSessions(room, engine.LOCAL_OPERATOR, engineInput({ participant: options.participant })),
      );
      answer(options, result, plainList);
    });

  command(session, 'revoke', 'revoke a session: it is refused from its next request on')
    .argument(...FILE_ARGUMENT)
    .argument('<session_id>', 'the session to revoke (se_...)')
    .addHelpText('after', '\nExample:\n  $ ce session revoke notes.md se_Xy3...')
    .action(async (file: string, sessionId: string, options: JsonOption) => {
      const result = await writing(
        file,
        'ce session revoke',
        (room, engine) => engine.revokeSession(room, engine.LOCAL_OPERATOR, { session_id: sessionId }),
        { remote: (running) => running.call('revokeSession', { session_id: sessionId }) },
      );
      answer(options, result, ({ session }) => `revoked session ${session.session_id} of ${session.participant}`);
    });
}

function plainCreated({ session, token }: SessionCreateOutput): string {
  return [
    `token: ${token}`,
    '',
    fields([
      ['session', session.session_id],
      ['participant', session.participant],
      ['capabilities', session.capabilities.join(',')],
      ['expires', session.expires_at ?? 'never (until revoked)'],
    ]),
    '',
    'The token is shown only this once and the room keeps only its hash: store it now.',
    'Clients send it as Authorization: Bearer <token>.',
  ].join('\n');
}

function plainList({ sessions }: SessionListOutput): string {
  if (sessions.length === 0) return 'no sessions';
  return columns(
    ['SESSION', 'PARTICIPANT', 'CAPABILITIES', 'CREATED', 'EXPIRES', 'REVOKED'],
    sessions.map((s) => [
      s.session_id,
      s.participant,
      s.capabilities.join(','),
      s.created_at,
      orDash(s.expires_at),
      orDash(s.revoked_at),
    ]),
  );
}

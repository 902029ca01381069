// ce participant add|list|remove: the local operator manages who is in the room (PRODUCT.md §3).
import type { Command } from 'commander';
import type { ParticipantListOutput } from '../../generated/types.js';
import { reading, writing } from './open-room.js';
import { command, FILE_ARGUMENT } from './options.js';
import { answer, columns, orDash, type JsonOption } from './output.js';

const NAME_ARGUMENT = [
  '<name>',
  "the participant's name (a letter or digit, then letters, digits, '.', '_', '-')",
] as const;

export function participantCommands(program: Command): void {
  const participant = program.command('participant').description('add, list or remove the participants of a room');

  command(participant, 'add', 'add a participant (or bring back a removed one; its old sessions stay revoked)')
    .argument(...FILE_ARGUMENT)
    .argument(...NAME_ARGUMENT)
    .addHelpText('after', '\nExample:\n  $ ce participant add notes.md alice')
    .action(async (file: string, name: string, options: JsonOption) => {
      const result = await writing(
        file,
        'ce participant add',
        (room, engine) => engine.addParticipant(room, engine.LOCAL_OPERATOR, { name }),
        { remote: (running) => running.call('addParticipant', { name }) },
      );
      answer(options, result, ({ participant }) => `added participant ${participant.name}`);
    });

  command(participant, 'list', 'list the current participants')
    .argument(...FILE_ARGUMENT)
    .option('--all', 'include removed participants')
    .addHelpText('after', '\nExample:\n  $ ce participant list notes.md --all')
    .action(async (file: string, options: JsonOption & { all?: boolean }) => {
      const result = await reading(file, (room, engine) =>
        engine.listParticipants(room, engine.LOCAL_OPERATOR, { includeRemoved: options.all === true }),
      );
      answer(options, result, plainList);
    });

  command(participant, 'remove', 'remove a participant and revoke its sessions; its record stays')
    .argument(...FILE_ARGUMENT)
    .argument(...NAME_ARGUMENT)
    .addHelpText('after', '\nExample:\n  $ ce participant remove notes.md alice')
    .action(async (file: string, name: string, options: JsonOption) => {
      const result = await writing(
        file,
        'ce participant remove',
        (room, engine) => engine.removeParticipant(room, engine.LOCAL_OPERATOR, { name }),
        { remote: (running) => running.call('removeParticipant', { name }) },
      );
      answer(options, result, ({ participant }) => `removed participant ${participant.name}; its sessions are revoked`);
    });
}

function plainList({ participants }: ParticipantListOutput): string {
  if (participants.length === 0) return 'no participants';
  return columns(
    ['NAME', 'ADDED', 'REMOVED'],
    participants.map((p) => [p.name, p.created_at, orDash(p.removed_at)]),
  );
}

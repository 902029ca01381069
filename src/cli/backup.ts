// ce backup FILE DEST and ce restore BACKUP FILE: a consistent copy of a
// room while it runs (SQLite's online backup API), and putting one back
// where no room process writes; ce restore --sidecar brings a room back
// from its sidecar alone (a replica's), the file written from it.
import path from 'node:path';
import type { Command } from 'commander';
import { DomainError } from '../errors.js';
import { loadEngine, openForWriting } from './executor.js';
import { command, FILE_ARGUMENT } from './options.js';
import { answer, fields, type JsonOption } from './output.js';

export function backupCommands(program: Command): void {
  command(program, 'backup', 'copy a room, running or not: its sidecar and the file as the sidecar last recorded it')
    .argument(...FILE_ARGUMENT)
    .argument('<dest>', "the backup's file (its sidecar goes beside it), or a directory to put it in")
    .addHelpText('after', '\nExample:\n  $ ce backup notes.md backups/notes-2026-12-02.md')
    .action(async (file: string, dest: string, options: JsonOption) => {
      const { backupRoom } = await import('../store/backup.js');
      answer(
        options,
        await backupRoom(file, dest),
        (r) =>
          `backed up ${file} at revision ${r.revision}\n${fields([
            ['file', r.artifact],
            ['sidecar', r.sidecar],
          ])}${
            r.unrecorded_edit
              ? `\n${file} holds an edit the room has not recorded, which this backup does not have: serve the room, or run ce init ${file}, to record it, then back up again`
              : ''
          }`,
      );
    });

  command(program, 'restore', "put a backup in place of a room's; what was there is kept beside it")
    .argument('<backup>', "the backup's file (ce backup's DEST), or with --sidecar a sidecar alone")
    .argument(...FILE_ARGUMENT)
    .option(
      '--sidecar',
      'BACKUP is a sidecar alone (a replica Litestream restored, say): FILE is written from its latest revision',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ ce restore backups/notes-2026-12-02.md notes.md\n  $ ce restore --sidecar restored/notes.md.commonroom.db notes.md',
    )
    .action(async (backup: string, file: string, options: JsonOption & { sidecar?: boolean }) => {
      const engine = await loadEngine();
      const { existsSync } = await import('node:fs');
      const { sidecarPath } = await import('../store/sidecar.js');
      await requireRestorable(options.sidecar === true ? backup : sidecarPath(backup), file);
      // The writer's lock proves no room process writes the target; it is released before the files move.
      if (existsSync(sidecarPath(file))) openForWriting(engine, file, 'ce restore', false).close();
      const { restoreRoom } = await import('../store/backup.js');
      const { kept, revokedAgain } = await restoreRoom(
        options.sidecar === true ? { sidecar: backup } : { artifact: backup },
        file,
        `.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`,
        Date.now(),
      );
      // The file follows its restored sidecar, as a writer does after a crash at this very point.
      const room = openForWriting(engine, file, 'ce restore', false);
      let revision: number;
      try {
        engine.syncArtifact(room);
        revision = room.workspace.currentRevision()!.number;
      } finally {
        room.close();
      }
      answer(options, { restored: file, from: backup, revision, kept, revoked_again: revokedAgain }, (r) =>
        [
          `restored ${r.restored} from ${r.from}, at revision ${r.revision}`,
          ...r.kept.map((k) => `kept what was there as ${k}`),
          r.revoked_again === null
            ? 'no room was there: its sessions are as the backup has them, so a token revoked since the backup was made works again until revoked again (ce session list, ce session revoke)'
            : `sessions revoked since the backup was made stay revoked (${r.revoked_again} of them were live in the backup)`,
        ].join('\n'),
      );
    });
}

/**
 * Refuses, before anything is copied, a restore that could not finish: a
 * folder for FILE that does not exist, or a sidecar to restore that holds no
 * room (an empty file, /dev/null, another program's database). A sidecar that
 * does not exist is restoreRoom's to name, with what a backup is.
 */
async function requireRestorable(sidecar: string, file: string): Promise<void> {
  const { statSync } = await import('node:fs');
  const folder = path.dirname(file);
  if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
    throw new DomainError('not_found', `the directory ${folder} does not exist`);
  }
  const stat = statSync(sidecar, { throwIfNoEntry: false });
  if (!stat) return;
  if (stat.isDirectory()) throw new DomainError('invalid_input', `${sidecar} is a directory; nothing was restored`);
  const { sidecarContents } = await import('../store/sidecar.js');
  const holds = sidecarContents(sidecar);
  if (holds === 'not_sqlite') {
    throw new DomainError('invalid_input', `${sidecar} is not a SQLite database; nothing was restored`);
  }
  if (holds === 'no_room') {
    throw new DomainError(
      'invalid_input',
      `${sidecar} is not a Common Room sidecar: it holds no room (it is empty, or another program's database); nothing was restored`,
    );
  }
}

// ce backup FILE DEST and ce restore BACKUP FILE: a consistent copy of a
// room while it runs (SQLite's online backup API), and putting one back
// where no room process writes.
import type { Command } from 'commander';
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
      const report = await backupRoom(file, dest);
      answer(
        options,
        report,
        (r) =>
          `backed up ${file} at revision ${r.revision}\n${fields([
            ['file', r.artifact],
            ['sidecar', r.sidecar],
          ])}`,
      );
    });

  command(program, 'restore', "put a backup in place of a room's; what was there is kept beside it")
    .argument('<backup>', "the backup's file (ce backup's DEST)")
    .argument(...FILE_ARGUMENT)
    .addHelpText('after', '\nExample:\n  $ ce restore backups/notes-2026-12-02.md notes.md')
    .action(async (backup: string, file: string, options: JsonOption) => {
      const engine = await loadEngine();
      const { existsSync } = await import('node:fs');
      const { sidecarPath } = await import('../store/sidecar.js');
      // The writer's lock proves no room process writes the target; it is released before the files move.
      if (existsSync(sidecarPath(file))) openForWriting(engine, file, 'ce restore', false).close();
      const { restoreRoom } = await import('../store/backup.js');
      const kept = await restoreRoom(
        backup,
        file,
        `.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`,
        Date.now(),
      );
      // The file follows its restored sidecar, as a writer does after a crash at this very point.
      const room = openForWriting(engine, file, 'ce restore', false);
      try {
        engine.syncArtifact(room);
      } finally {
        room.close();
      }
      answer(options, { restored: file, from: backup, kept }, (r) =>
        [`restored ${r.restored} from ${r.from}`, ...r.kept.map((k) => `kept what was there as ${k}`)].join('\n'),
      );
    });
}

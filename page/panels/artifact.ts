// The artifact: the file rendered from Markdown, its revision and who changed it last.
import type { ArtifactReadOutput, Revision } from '../../generated/types.js';
import { h, when } from '../dom.js';
import { showMarkdown } from '../markdown.js';

export function revisionLine(revision: Revision): string {
  const by =
    revision.source === 'initial'
      ? 'the file as the room found it'
      : revision.source === 'external'
        ? 'edited outside the room'
        : `changed by ${revision.author ?? 'someone'}${revision.approver ? `, approved by ${revision.approver}` : ''}`;
  return `Revision ${revision.number} · ${by} · ${when(revision.at)}`;
}

export function renderArtifact(section: HTMLElement, artifact: ArtifactReadOutput): void {
  const body = h('div', { class: 'markdown', id: 'artifact-body' });
  if (artifact.revision.utf8 === false) {
    body.append(h('p', { class: 'notice' }, 'The file is not UTF-8 text at this revision, so it cannot be shown.'));
  } else {
    showMarkdown(body, artifact.content);
  }
  section.replaceChildren(
    h('h2', { id: 'artifact-heading' }, artifact.name),
    h('p', { class: 'meta', id: 'artifact-revision' }, revisionLine(artifact.revision)),
    body,
  );
}

// The artifact: the file rendered from Markdown, its revision and who
// changed it last; for a session with write, Edit opens it in the editor
// (editor.ts) in place of the rendered text, and the editor stays while
// the file changes under it.
import type { ArtifactReadOutput, Revision } from '../../generated/types.js';
import type { PageContext } from '../context.js';
import { h, when } from '../dom.js';
import { showMarkdown } from '../markdown.js';
import { editForm, type EditForm } from './editor.js';

export function revisionLine(revision: Revision): string {
  const by =
    revision.source === 'initial'
      ? 'the file as the room found it'
      : revision.source === 'external'
        ? 'edited outside the room'
        : `changed by ${revision.author ?? 'someone'}${revision.approver ? `, approved by ${revision.approver}` : ''}`;
  return `Revision ${revision.number} · ${by} · ${when(revision.at)}`;
}

export class ArtifactPanel {
  private readonly heading = h('h2', { id: 'artifact-heading' });
  private readonly revision = h('p', { class: 'meta', id: 'artifact-revision' });
  private readonly body = h('div', { class: 'markdown', id: 'artifact-body' });
  private readonly editButton = h('button', { type: 'button', id: 'artifact-edit', hidden: true }, 'Edit');
  private readonly status = h('p', { class: 'status', role: 'status' });
  private artifact: ArtifactReadOutput | null = null;
  private editor: EditForm | null = null;

  constructor(
    section: HTMLElement,
    private readonly context: PageContext,
  ) {
    this.editButton.addEventListener('click', () => this.edit());
    section.replaceChildren(
      h('div', { class: 'panel-head' }, this.heading, context.can('write') ? this.editButton : null),
      this.revision,
      this.status,
      this.body,
    );
  }

  show(artifact: ArtifactReadOutput): void {
    this.artifact = artifact;
    this.heading.textContent = artifact.name;
    this.revision.textContent = revisionLine(artifact.revision);
    const text = artifact.revision.utf8 !== false;
    this.editButton.hidden = !text || this.editor !== null;
    if (this.editor) return this.editor.revisionNow(artifact.revision.number);
    if (text) showMarkdown(this.body, artifact.content);
    else {
      this.body.replaceChildren(
        h('p', { class: 'notice' }, 'The file is not UTF-8 text at this revision, so it cannot be shown.'),
      );
    }
  }

  private edit(): void {
    if (!this.artifact || this.editor) return;
    this.status.textContent = '';
    const editor = editForm(this.context, this.artifact, (announce) => {
      this.editor = null;
      editor.element.remove();
      this.body.hidden = false;
      if (this.artifact) this.show(this.artifact);
      this.status.textContent = announce ?? '';
      this.editButton.focus();
    });
    this.editor = editor;
    this.body.hidden = true;
    this.editButton.hidden = true;
    this.body.before(editor.element);
    editor.focus();
  }
}

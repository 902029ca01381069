// Editing the file from the page: the text in CodeMirror (Markdown
// highlighted), the change against the revision opened shown as a diff as
// it is typed, a summary, and Propose. Changes that land meanwhile are no
// reason to start again: the room merges the proposal onto them when it is
// approved, unless both change the same lines.
import { markdown } from '@codemirror/lang-markdown';
import { syntaxHighlighting } from '@codemirror/language';
import { Prec } from '@codemirror/state';
import { oneDarkHighlightStyle } from '@codemirror/theme-one-dark';
import { keymap } from '@codemirror/view';
import { basicSetup, EditorView } from 'codemirror';
import type { ArtifactReadOutput } from '../../generated/types.js';
import { INPUT_LIMITS } from '../../generated/rules.js';
import type { PageContext } from '../context.js';
import { diffView, unifiedDiff } from '../diff-view.js';
import { h } from '../dom.js';

/** How long typing pauses before the preview follows. */
const PREVIEW_AFTER_MS = 150;

const dark = window.matchMedia('(prefers-color-scheme: dark)').matches;

/** The editor in the page's colours (its CSS variables reach into the shadow root), light or dark as the system is. */
const theme = EditorView.theme(
  {
    '&': {
      border: '1px solid var(--line)',
      borderRadius: '6px',
      background: 'var(--panel)',
      color: 'var(--text)',
      maxHeight: '60vh',
      minHeight: '10rem',
    },
    '&.cm-focused': { outline: '2px solid var(--focus)', outlineOffset: '1px' },
    '.cm-scroller': { overflow: 'auto', fontFamily: 'ui-monospace, monospace', fontSize: '0.9rem', lineHeight: '1.5' },
    '.cm-gutters': { background: 'var(--bg)', color: 'var(--muted)', borderRight: '1px solid var(--line)' },
    '.cm-content': { caretColor: 'var(--text)' },
    '&.cm-focused .cm-cursor': { borderLeftColor: 'var(--text)' },
  },
  { dark },
);

/**
 * In dark mode, Markdown highlighted in One Dark's colours, which read on a
 * dark panel: basicSetup's own are for a light one (1.8:1 on the page's dark
 * panel). In light mode basicSetup's stay.
 */
const darkHighlighting = dark ? [syntaxHighlighting(oneDarkHighlightStyle)] : [];

export interface EditForm {
  element: HTMLElement;
  /** The file is at `revision` now: said beside the editor when it is not the one opened. */
  revisionNow(revision: number): void;
  focus(): void;
}

/** A form editing `artifact` as it is now; `close` runs on Cancel and once the proposal is made (with what to announce). */
export function editForm(
  context: PageContext,
  artifact: ArtifactReadOutput,
  close: (announce: string | null) => void,
): EditForm {
  const base = artifact.revision.number;
  const name = artifact.name;
  const status = h('p', { class: 'status', role: 'status' });
  const moved = h('p', { class: 'notice', role: 'status', hidden: true });
  // Not a live region: a screen reader would read the whole diff again at every pause in typing.
  const preview = h('div', { class: 'preview', id: 'edit-preview' });
  const summary = h('input', {
    id: 'edit-summary',
    name: 'summary',
    required: true,
    maxlength: INPUT_LIMITS.proposeChange.summary.maxLength,
    autocomplete: 'off',
  });
  const propose = h('button', { type: 'submit', class: 'primary' }, 'Propose');
  const cancel = h('button', { type: 'button' }, 'Cancel');
  // CodeMirror styles itself with stylesheets it builds as it runs. Inside a
  // shadow root they are constructed stylesheets, which the page's policy
  // (no inline style) allows; in the document they would be <style> tags.
  const host = h('div', { class: 'editor', id: 'edit-text' });
  const shadow = host.attachShadow({ mode: 'open' });
  const form = h(
    'form',
    { class: 'edit', 'aria-labelledby': 'edit-heading' },
    h('h3', { id: 'edit-heading' }, `Propose a change to ${name}`),
    h('p', { class: 'meta' }, `Editing revision ${base}. Ctrl+Enter (⌘+Enter) proposes; Tab leaves the text.`),
    moved,
    h('div', { class: 'field' }, h('span', { class: 'label', 'aria-hidden': 'true' }, 'Text'), host),
    h(
      'section',
      { 'aria-labelledby': 'edit-preview-heading' },
      h('h4', { id: 'edit-preview-heading' }, 'Your change'),
      preview,
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'edit-summary' }, 'Summary (required)'),
      summary,
      h('small', { class: 'hint' }, 'what the change is and why, as a commit message says it'),
    ),
    h('div', { class: 'actions' }, propose, cancel),
    status,
  );

  let timer: ReturnType<typeof setTimeout> | null = null;
  const showPreview = () => {
    timer = null;
    const text = view.state.doc.toString();
    preview.replaceChildren(
      text === artifact.content
        ? h('p', { class: 'meta' }, 'No change yet.')
        : diffView(
            unifiedDiff(name, artifact.content, text, `revision ${base}`, 'your change'),
            `Your change against revision ${base}`,
            true,
          ),
    );
  };
  const view = new EditorView({
    doc: artifact.content,
    parent: shadow,
    root: shadow,
    extensions: [
      basicSetup,
      markdown(),
      EditorView.lineWrapping,
      theme,
      darkHighlighting,
      // A label outside the shadow root cannot name the text by its id: the text carries its name.
      EditorView.contentAttributes.of({ 'aria-label': 'Text' }),
      // Before basicSetup's own Mod-Enter (a blank line).
      Prec.highest(keymap.of([{ key: 'Mod-Enter', run: () => (form.requestSubmit(propose), true) }])),
      EditorView.updateListener.of((update) => {
        if (!update.docChanged) return;
        if (timer !== null) clearTimeout(timer);
        timer = setTimeout(showPreview, PREVIEW_AFTER_MS);
      }),
    ],
  });
  showPreview();

  const finish = (announce: string | null) => {
    if (timer !== null) clearTimeout(timer);
    view.destroy();
    close(announce);
  };
  cancel.addEventListener('click', () => finish(null));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const content = view.state.doc.toString();
    let made = '';
    void context.act({
      control: propose,
      status,
      run: async () => {
        const { proposal } = await context.api.rest((room) =>
          room.POST('/workspace/proposals', { body: { base_revision: base, content, summary: summary.value } }),
        );
        made = proposal.proposal_id;
      },
      changes: ['proposals'],
      done: () => finish(`Proposed (${made}); it waits for an approver.`),
    });
  });

  return {
    element: form,
    revisionNow(revision) {
      moved.hidden = revision === base;
      moved.textContent = `The file is at revision ${revision} now. Your change is made against revision ${base}; when it is approved the room merges it onto the newer text, unless both change the same lines.`;
    },
    focus: () => view.focus(),
  };
}

// The room's history, revisions and decisions, newest first, a page at a
// time: what happened lately first, as a person opening the room wants it;
// the page keeps the cursors it came by, so it can come back.
import type { HistoryEntry, WorkspaceHistoryOutput } from '../../generated/types.js';
import { h, when } from '../dom.js';

export const HISTORY_PAGE = 20;

function entryText(entry: HistoryEntry): string {
  const who = entry.actor ?? 'outside the room';
  switch (entry.kind) {
    case 'revision': {
      const revision = entry.revision;
      if (!revision) return `a revision by ${who}`;
      if (revision.source === 'initial') return `revision ${revision.number}: the file as the room found it`;
      if (revision.source === 'external') return `revision ${revision.number}: edited outside the room`;
      return `revision ${revision.number}: ${revision.author ?? who}'s proposal, approved by ${revision.approver ?? who}`;
    }
    case 'proposal_rejected':
      return `${who} rejected proposal ${entry.proposal_id ?? ''}`;
    case 'proposal_withdrawn':
      return `${who} withdrew proposal ${entry.proposal_id ?? ''}`;
    case 'handoff_approved':
      return `${who} approved the result of handoff ${entry.handoff_id ?? ''}`;
    case 'handoff_rejected':
      return `${who} rejected the result of handoff ${entry.handoff_id ?? ''}`;
  }
}

export class HistoryPager {
  /** The `before` of each page shown so far (0 for the latest); the last is the page on screen. */
  private cursors: number[] = [0];
  private readonly list = h('ol', { class: 'history', id: 'history-list' });
  private readonly position = h('span', { class: 'meta', id: 'history-page', role: 'status' });
  private readonly earlier = h('button', { type: 'button', id: 'history-earlier' }, 'Earlier');
  private readonly later = h('button', { type: 'button', id: 'history-later' }, 'Later');

  constructor(
    section: HTMLElement,
    private readonly read: (before: number) => Promise<WorkspaceHistoryOutput>,
  ) {
    this.earlier.addEventListener('click', () => {
      if (this.next !== null) this.cursors.push(this.next);
      void this.refresh();
    });
    this.later.addEventListener('click', () => {
      if (this.cursors.length > 1) this.cursors.pop();
      void this.refresh();
    });
    section.replaceChildren(
      h('h2', { id: 'history-heading' }, 'History'),
      this.list,
      h('nav', { class: 'pager', 'aria-label': 'History pages' }, this.earlier, this.position, this.later),
    );
  }

  private next: number | null = null;
  /** Reads asked for so far: only the newest one's answer is drawn. */
  private asked = 0;

  /** Reads the page on screen again. */
  async refresh(): Promise<void> {
    const before = this.cursors[this.cursors.length - 1] ?? 0;
    const ask = ++this.asked;
    const page = await this.read(before);
    // A read begun before another (a live update's, then Earlier pressed) must not draw its older page over it.
    if (ask !== this.asked) return;
    this.next = page.has_more ? (page.next_before ?? null) : null;
    this.list.replaceChildren(
      ...page.entries.map((entry) =>
        h(
          'li',
          { 'data-entry-id': String(entry.id) },
          h('span', { class: 'meta' }, when(entry.at)),
          ' ',
          entryText(entry),
          entry.note ? ` — ${entry.note}` : '',
        ),
      ),
    );
    if (page.entries.length === 0) this.list.append(h('li', { class: 'meta' }, 'nothing yet'));
    this.position.textContent = `page ${this.cursors.length}`;
    // A button disabled under the focus drops it: the focus goes to the other one, to page back.
    const focused = document.activeElement;
    this.earlier.disabled = this.next === null;
    this.later.disabled = this.cursors.length === 1;
    if (focused === this.later && this.later.disabled && !this.earlier.disabled) this.earlier.focus();
    if (focused === this.earlier && this.earlier.disabled && !this.later.disabled) this.later.focus();
  }
}

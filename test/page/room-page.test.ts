// The room's page in a real browser (Debian chromium through playwright-core)
// against a real `ce serve`: signing in, the artifact, live updates from
// another participant over MCP, decisions taken on the page reaching the
// file and the task, what a session without approve sees, hostile text, and
// a reconnect after the room restarts. Every page is watched: all its
// requests go to the room's own origin, and nothing is logged as an error.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ceServe, roomOperator, type RoomOperator, type ServedRoom } from '../helpers/ce-serve.js';
import { launchChromium, SCREENSHOTS, watchedPage, type WatchedPage } from '../helpers/browser.js';
import { rpc } from '../helpers/server.js';

const NOTES = `# Field notes

Some **bold** text and a [link](https://example.org/).

| left | right |
|:-----|------:|
| a    | 1     |
`;

let dir: string;
let file: string;
let served: ServedRoom;
let room: RoomOperator;
let browser: Browser;
const tokens: Record<string, string> = {};
const pages: WatchedPage[] = [];
/** Console errors a test expects (the room was stopped on purpose). */
let expectedErrors: RegExp | null = null;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ce-page-'));
  file = path.join(dir, 'notes.md');
  writeFileSync(file, NOTES);
  served = await ceServe(file);
  room = roomOperator(file);
  for (const name of ['alice', 'bob', 'carol']) await room.addParticipant(name);
  tokens.alice = await room.session('alice', ['read', 'write', 'approve']);
  tokens.bob = await room.session('bob', ['read', 'write']);
  tokens.carol = await room.session('carol', ['read', 'write']);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
});

afterEach(async () => {
  const origin = new URL(room.baseUrl).origin;
  for (const watched of pages.splice(0)) {
    await watched.close();
    expect(watched.requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(watched.errors.filter((text) => !expectedErrors?.test(text))).toEqual([]);
    expect(watched.dialogs).toEqual([]);
  }
  expectedErrors = null;
});

async function open(token: string | null, options: Parameters<typeof watchedPage>[1] = {}): Promise<WatchedPage> {
  const watched = await watchedPage(browser, options);
  pages.push(watched);
  await watched.page.goto(token === null ? `${room.baseUrl}/` : `${room.baseUrl}/#token=${token}`);
  return watched;
}

/** Signed in and listening: the room said it is live. */
async function live(page: Page): Promise<void> {
  await page.locator('#live[data-state="live"]').waitFor({ timeout: 10_000 });
}

/** A tool call over MCP as `who`; its structuredContent. */
async function tool(who: string, name: string, args: Record<string, unknown>): Promise<any> {
  const answer = await rpc(room.mcpUrl, 'tools/call', { name, arguments: args }, { token: tokens[who]! });
  const result = answer.body.result;
  if (!result || result.isError) throw new Error(`${name} was refused: ${JSON.stringify(answer.body)}`);
  return result.structuredContent;
}

const revision = async (): Promise<number> => (await tool('bob', 'workspace_read', {})).revision.number;
const fileText = () => readFileSync(file, 'utf8');

describe('signing in', () => {
  it('by the fragment: the token leaves the address bar and its history entry, and the artifact renders', async () => {
    const { page, screenshot } = await open(tokens.alice!);
    await live(page);
    expect(page.url()).toBe(`${room.baseUrl}/`);
    expect(await page.evaluate('location.hash')).toBe('');
    expect(await page.evaluate("sessionStorage.getItem('commonroom.token')")).toBe(tokens.alice);
    await expect.poll(() => page.locator('#who').textContent()).toBe('alice · read, write, approve');
    await expect.poll(() => page.locator('#artifact-body h1').textContent()).toBe('Field notes');
    expect(await page.locator('#artifact-body strong').textContent()).toBe('bold');
    expect(await page.locator('#artifact-body a').getAttribute('href')).toBe('https://example.org/');
    // The table's alignment is a class: the policy allows no style attribute.
    expect(await page.locator('#artifact-body th').first().getAttribute('class')).toBe('align-left');
    expect(await page.locator('#artifact-body [style]').count()).toBe(0);
    expect(await page.locator('#artifact-heading').textContent()).toBe('notes.md');
    expect(await page.locator('#artifact-revision').textContent()).toMatch(/^Revision \d+ · /);
    await screenshot('signed-in');
  });

  it('a reload keeps the session (sessionStorage); signing out forgets it', async () => {
    const { page } = await open(tokens.alice!);
    await live(page);
    await page.reload();
    await live(page);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('#sign-in').waitFor();
    expect(await page.evaluate("sessionStorage.getItem('commonroom.token')")).toBeNull();
    expect(await page.locator('#room').isHidden()).toBe(true);
  });

  it('a bad token shows the sign-in message and nothing of the room', async () => {
    const { page, screenshot } = await open('cr_not-a-session');
    await page.locator('#sign-in').waitFor();
    expect(await page.locator('#sign-in-message').textContent()).toMatch(/^This session was not accepted/);
    expect(await page.locator('#room').isHidden()).toBe(true);
    expect(await page.locator('#room').innerHTML()).toBe('');
    expect(await page.locator('body').textContent()).not.toContain('Field notes');
    expect(page.url()).toBe(`${room.baseUrl}/`);
    await screenshot('signed-out');
    // The browser logs the refused GET /workspace/session itself; the page logs nothing.
    expectedErrors = /status of 401/;
  }, 20_000);

  it('with no token, a token pasted in the field signs in, by keyboard alone', async () => {
    const { page } = await open(null);
    await page.locator('#sign-in').waitFor();
    // The skip link leads to what is shown: the sign-in form, then the room.
    const skip = page.getByRole('link', { name: 'Skip to sign in' });
    expect(await skip.getAttribute('href')).toBe('#sign-in');
    await page.locator('#sign-in-token').focus();
    await page.keyboard.type(tokens.alice!);
    await page.keyboard.press('Enter');
    await live(page);
    await expect.poll(() => page.locator('#artifact-body h1').textContent()).toBe('Field notes');
    expect(await page.getByRole('link', { name: 'Skip to the room' }).getAttribute('href')).toBe('#room');
  });

  it('a session revoked while the page is open: the page signs out and shows nothing of the room', async () => {
    const token = await room.session('alice', ['read', 'write', 'approve']);
    const { page } = await open(token);
    await live(page);
    const sessions = await room.rest('GET', '/workspace/sessions?participant=alice');
    const id = sessions.body.sessions.find((s: { revoked_at: string | null }) => s.revoked_at === null).session_id;
    // The newest session is this page's.
    expect((await room.rest('DELETE', `/workspace/sessions/${id}`)).status).toBe(200);
    await tool('bob', 'handoff_create', { summary: 'Anything, so the page reads again' });
    await page.locator('#sign-in').waitFor({ timeout: 5_000 });
    expect(await page.locator('#room').innerHTML()).toBe('');
    expect(await page.evaluate("sessionStorage.getItem('commonroom.token')")).toBeNull();
    // The page's last reads were refused: the console names the 401s, nothing else.
    expectedErrors = /status of 401/;
  });

  it('a session revoked while nothing else happens: the room ends the page’s stream and the page signs out', async () => {
    const token = await room.session('alice', ['read']);
    const { page } = await open(token);
    await live(page);
    const sessions = await room.rest('GET', '/workspace/sessions?participant=alice');
    const id = sessions.body.sessions.find((s: { revoked_at: string | null }) => s.revoked_at === null).session_id;
    expect((await room.rest('DELETE', `/workspace/sessions/${id}`)).status).toBe(200);
    await page.locator('#sign-in').waitFor({ timeout: 5_000 });
    expect(await page.locator('#sign-in-message').textContent()).toMatch(/^This session was not accepted/);
    expect(await page.locator('#room').innerHTML()).toBe('');
    expect(await page.evaluate("sessionStorage.getItem('commonroom.token')")).toBeNull();
    expectedErrors = /status of 401/;
  });
});

describe('live, with another participant over MCP', () => {
  it('a handoff and a proposal made over MCP appear live, with no reload', async () => {
    const { page, screenshot } = await open(tokens.alice!);
    await live(page);
    await page.evaluate('window.sameDocument = true');
    const { handoff } = await tool('bob', 'handoff_create', { summary: 'Check the figures', assignee: 'alice' });
    await page.locator(`[data-handoff-id="${handoff.handoff_id}"]`).waitFor({ timeout: 5_000 });
    const item = page.locator(`[data-handoff-id="${handoff.handoff_id}"]`);
    expect(await item.locator('.summary').textContent()).toBe('Check the figures');
    expect(await item.locator('.meta').first().textContent()).toMatch(/^open · from bob · to alice · /);
    expect(await page.locator('#handoffs-open').locator(`[data-handoff-id="${handoff.handoff_id}"]`).count()).toBe(1);

    const { proposal } = await tool('bob', 'workspace_propose', {
      base_revision: await revision(),
      content: `${fileText()}\nA line from bob.\n`,
      summary: 'Add a line',
    });
    const card = page.locator(`[data-proposal-id="${proposal.proposal_id}"]`);
    await card.waitFor({ timeout: 5_000 });
    expect(await card.locator('.summary').textContent()).toBe('Add a line');
    // The change against its base, drawn by diff2html: the added line marked as inserted.
    expect(await card.locator('.diff-view figcaption').first().textContent()).toMatch(
      /^The change against revision \d+$/,
    );
    expect(
      (await card.locator('.diff-view .d2h-ins .d2h-code-line-ctn').allTextContents()).map((t) => t.trim()),
    ).toContain('A line from bob.');
    // Its lines scroll sideways in a region named by the caption, which a keyboard can focus and scroll.
    const scroller = card.getByRole('region', { name: /^The change against revision \d+$/ });
    expect(await scroller.getAttribute('tabindex')).toBe('0');
    expect(await page.evaluate('window.sameDocument')).toBe(true);
    await screenshot('live-handoff-and-proposal');
  });

  it('approving a proposal on the page writes the file on disk; the page shows the new revision', async () => {
    const { page, screenshot } = await open(tokens.alice!);
    await live(page);
    const { proposal } = await tool('bob', 'workspace_propose', {
      base_revision: await revision(),
      content: `${fileText()}\nApproved on the page.\n`,
      summary: 'Approve me',
    });
    const card = page.locator(`[data-proposal-id="${proposal.proposal_id}"]`);
    await card.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(fileText).toContain('Approved on the page.');
    await card.waitFor({ state: 'detached' });
    await expect
      .poll(() => page.locator('#artifact-revision').textContent())
      .toMatch(/changed by bob, approved by alice/);
    expect(await page.locator('#artifact-body').textContent()).toContain('Approved on the page.');
    await screenshot('proposal-approved');
  });

  it('a proposal on an older revision shows whether it merges: a conflicting one names the lines and offers no Approve; its author may withdraw it', async () => {
    const base = await revision();
    const { page, screenshot } = await open(tokens.alice!);
    await live(page);
    const mine = await tool('alice', 'workspace_propose', {
      base_revision: base,
      content: `${fileText()}\nAlice's own.\n`,
      summary: 'Mine',
    });
    const theirs = await tool('bob', 'workspace_propose', {
      base_revision: base,
      content: `${fileText()}\nBob's first.\n`,
      summary: 'First',
    });
    await tool('alice', 'proposal_approve', { proposal_id: theirs.proposal.proposal_id });
    // Both added a line at the end of the file: the same place, a conflict, said as lines.
    const card = page.locator(`[data-proposal-id="${mine.proposal.proposal_id}"]`);
    const notice = card.locator('.merge.conflicts');
    await expect
      .poll(() => notice.locator('> p').allTextContents())
      .toEqual([
        `Based on revision ${base}; the file is at revision ${base + 1} now. Both changed the same lines, so it cannot be approved as it is:`,
        `The author can propose it again from revision ${base + 1}.`,
      ]);
    expect(await notice.locator('li').first().textContent()).toMatch(
      new RegExp(`of revision ${base}: .* now, .* in the proposal$`),
    );
    // The conflicting lines themselves, as a diff: the current revision's line against the proposal's.
    const conflict = notice.locator('.diff-view');
    expect(await conflict.locator('figcaption').textContent()).toMatch(
      new RegExp(`^.* of revision ${base}: revision ${base + 1}, .* \\(−\\) against the proposal, .* \\(\\+\\)$`),
    );
    const lines = async (kind: string) =>
      (await conflict.locator(`.${kind} .d2h-code-line-ctn`).allTextContents()).map((t) => t.trim());
    expect(await lines('d2h-del')).toContain("Bob's first.");
    expect(await lines('d2h-ins')).toContain("Alice's own.");
    expect(await card.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await screenshot('proposal-conflict');
    await card.getByRole('button', { name: 'Withdraw' }).click();
    await card.waitFor({ state: 'detached' });
    const withdrawn = await tool('bob', 'proposal_get', { proposal_id: mine.proposal.proposal_id });
    expect(withdrawn.proposal).toMatchObject({ status: 'withdrawn', decided_by: 'alice' });
  });
  it('a proposal whose changes the file already holds says so and offers no Approve, which the room would refuse', async () => {
    const base = await revision();
    const { page, screenshot } = await open(tokens.alice!);
    await live(page);
    const same = { base_revision: base, content: `${fileText()}\nSaid twice.\n` };
    const first = await tool('bob', 'workspace_propose', { ...same, summary: 'Once' });
    const again = await tool('alice', 'workspace_propose', { ...same, summary: 'Twice' });
    await tool('alice', 'proposal_approve', { proposal_id: first.proposal.proposal_id });
    const card = page.locator(`[data-proposal-id="${again.proposal.proposal_id}"]`);
    await expect
      .poll(() => card.locator('.merge.applied').textContent())
      .toBe(
        `Based on revision ${base}; the file is at revision ${base + 1} now. The file already holds its changes, so approving it would write nothing new: it can be rejected or withdrawn.`,
      );
    expect(await card.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await screenshot('proposal-already-applied');
    await card.getByRole('button', { name: 'Withdraw' }).click();
    await card.waitFor({ state: 'detached' });
  });
  it('a proposal rejected on the page with a note: the note is recorded with the decision', async () => {
    const { page } = await open(tokens.alice!);
    await live(page);
    const { proposal } = await tool('bob', 'workspace_propose', {
      base_revision: await revision(),
      content: `${fileText()}\nNot this one.\n`,
      summary: 'Reject me',
    });
    const card = page.locator(`[data-proposal-id="${proposal.proposal_id}"]`);
    await card.getByLabel('Note (optional)').fill('Say it in the intro instead');
    await card.getByRole('button', { name: 'Reject' }).click();
    await card.waitFor({ state: 'detached' });
    expect((await tool('bob', 'proposal_get', { proposal_id: proposal.proposal_id })).proposal).toMatchObject({
      status: 'rejected',
      decided_by: 'alice',
      note: 'Say it in the intro instead',
    });
  });

  it('a note half typed keeps its text and the focus when a revision lands and the card is drawn again', async () => {
    const { page } = await open(tokens.alice!);
    await live(page);
    const base = await revision();
    const before = fileText();
    const { proposal } = await tool('bob', 'workspace_propose', {
      base_revision: base,
      content: `${before}\nBob's line.\n`,
      summary: 'Half-typed note',
    });
    const card = page.locator(`[data-proposal-id="${proposal.proposal_id}"]`);
    const note = card.getByLabel('Note (optional)');
    await note.fill('half typed');
    const other = await tool('carol', 'workspace_propose', {
      base_revision: base,
      content: `Carol's first line.\n${before}`,
      summary: 'Lands first',
    });
    await tool('alice', 'proposal_approve', { proposal_id: other.proposal.proposal_id });
    // The card is drawn again: it now says bob's change merges onto the new revision.
    await card.getByText('It merges cleanly').waitFor({ timeout: 5_000 });
    expect(await note.inputValue()).toBe('half typed');
    expect(await page.evaluate('document.activeElement?.id')).toBe(`proposal-note-${proposal.proposal_id}`);
    await tool('bob', 'proposal_withdraw', { proposal_id: proposal.proposal_id });
    // The file as it was, for the tests after this one.
    const back = await tool('carol', 'workspace_propose', {
      base_revision: await revision(),
      content: before,
      summary: 'As it was',
    });
    await tool('alice', 'proposal_approve', { proposal_id: back.proposal.proposal_id });
  });
});

describe('editing the file on the page', () => {
  /** The editor's text box (CodeMirror's content, labelled "Text"). */
  const textBox = (page: Page) => page.getByRole('textbox', { name: 'Text', exact: true });
  /** Whether the focus is in the editor's text. */
  const inText = (page: Page) =>
    page.evaluate("document.activeElement?.shadowRoot?.activeElement?.classList.contains('cm-content') ?? false");
  const focusedId = (page: Page) => page.evaluate('document.activeElement?.id');
  /** The lines the preview marks as inserted. */
  const previewed = async (page: Page) =>
    (await page.locator('#edit-preview .d2h-ins .d2h-code-line-ctn').allTextContents()).map((t) => t.trim());

  it('a person edits, sees the change previewed, proposes; a second person approves it on their page; the first sees the file change live', async () => {
    const bob = await open(tokens.bob!);
    const alice = await open(tokens.alice!);
    await Promise.all([live(bob.page), live(alice.page)]);
    const base = await revision();
    await bob.page.getByRole('button', { name: 'Edit' }).click();
    // The editor has the focus, the rendered text gives way to it, and Edit is gone until it closes.
    await expect.poll(() => inText(bob.page)).toBe(true);
    expect(await bob.page.locator('#artifact-body').isHidden()).toBe(true);
    expect(await bob.page.getByRole('button', { name: 'Edit' }).count()).toBe(0);
    expect(await bob.page.locator('#edit-preview').textContent()).toBe('No change yet.');
    // Markdown is highlighted as such: the heading line is styled as one.
    expect(await bob.page.locator('.cm-content .cm-line').first().textContent()).toBe('# Field notes');
    await textBox(bob.page).press('Control+End');
    await bob.page.keyboard.type('Written on the page.');
    await expect.poll(() => previewed(bob.page)).toContain('Written on the page.');
    expect(await bob.page.locator('#edit-preview figcaption').textContent()).toBe(
      `Your change against revision ${base}`,
    );
    await bob.screenshot('edit-preview');
    await bob.page.locator('form.edit').getByLabel('Summary (required)').fill('A line written on the page');
    await bob.page.getByRole('button', { name: 'Propose' }).click();
    const said = bob.page.locator('#artifact > .status');
    await expect.poll(() => said.textContent()).toMatch(/^Proposed \(pr_[\w-]+\); it waits for an approver\.$/);
    const proposalId = /\((pr_[\w-]+)\)/.exec((await said.textContent())!)![1]!;
    // The editor closed: the file as it is, and Edit to press again, with the focus on it.
    expect(await bob.page.locator('form.edit').count()).toBe(0);
    await expect.poll(() => focusedId(bob.page)).toBe('artifact-edit');
    expect((await tool('bob', 'proposal_get', { proposal_id: proposalId })).proposal).toMatchObject({
      status: 'open',
      author: 'bob',
      base_revision: base,
      summary: 'A line written on the page',
      content: `${fileText()}Written on the page.`,
    });

    // The second person sees it with its diff, live, and approves it.
    const card = alice.page.locator(`[data-proposal-id="${proposalId}"]`);
    await card.waitFor({ timeout: 5_000 });
    expect((await card.locator('.d2h-ins .d2h-code-line-ctn').allTextContents()).map((t) => t.trim())).toContain(
      'Written on the page.',
    );
    await card.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(fileText).toMatch(/Written on the page\.$/);
    // The first person's page follows, with no reload.
    await expect
      .poll(() => bob.page.locator('#artifact-body').textContent(), { timeout: 5_000 })
      .toContain('Written on the page.');
    expect(await bob.page.locator('#artifact-revision').textContent()).toMatch(
      new RegExp(`^Revision ${base + 1} · changed by bob, approved by alice · `),
    );
    await bob.screenshot('edit-approved');
  });

  it('by keyboard alone; a change landing meanwhile is said beside the editor, and the proposal merges onto it', async () => {
    const { page } = await open(tokens.bob!);
    await live(page);
    const base = await revision();
    const edit = page.getByRole('button', { name: 'Edit' });
    await edit.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => inText(page)).toBe(true);
    // Someone else's change to the first line lands while bob edits.
    const theirs = await tool('carol', 'workspace_propose', {
      base_revision: base,
      content: fileText().replace('# Field notes', '# Field notes, kept'),
      summary: 'Retitle',
    });
    await tool('alice', 'proposal_approve', { proposal_id: theirs.proposal.proposal_id });
    await expect
      .poll(() => page.locator('form.edit .notice').textContent())
      .toBe(
        `The file is at revision ${base + 1} now. Your change is made against revision ${base}; when it is approved the room merges it onto the newer text, unless both change the same lines.`,
      );
    // Bob's text is as he left it: the editor was not replaced under him.
    expect(await page.locator('.cm-content .cm-line').first().textContent()).toBe('# Field notes');
    await page.keyboard.press('Control+End');
    await page.keyboard.type('Typed by keyboard.');
    // Tab leaves the text for the summary, past the preview of the change; Ctrl+Enter from the text proposes.
    await page.locator('#edit-preview .diff-view').waitFor();
    await page.keyboard.press('Tab');
    expect(await focusedId(page)).toBe('edit-summary');
    await page.keyboard.type('Keyboard only');
    await textBox(page).focus();
    await page.keyboard.press('Control+Enter');
    const said = page.locator('#artifact > .status');
    await expect.poll(() => said.textContent()).toMatch(/^Proposed \(pr_[\w-]+\)/);
    const proposalId = /\((pr_[\w-]+)\)/.exec((await said.textContent())!)![1]!;
    const approved = await tool('alice', 'proposal_approve', { proposal_id: proposalId });
    expect(approved.revision).toMatchObject({ number: base + 2, merged_base: base });
    expect(fileText()).toMatch(/^# Field notes, kept\n[\s\S]*Typed by keyboard\.$/);
  });

  it('a summary of only spaces is refused beside the form, naming the field; the editor keeps the text', async () => {
    expectedErrors = /status of 400 \(Bad Request\)/; // the refusal, as the browser logs it
    const { page } = await open(tokens.bob!);
    await live(page);
    await page.getByRole('button', { name: 'Edit' }).click();
    await textBox(page).press('Control+End');
    await page.keyboard.type('Not proposed.');
    await page.locator('form.edit').getByLabel('Summary (required)').fill('   ');
    await page.getByRole('button', { name: 'Propose' }).click();
    await expect
      .poll(() => page.locator('form.edit .status').textContent())
      .toBe('summary must be some text, not only spaces (got "   ")');
    expect(await page.locator('.cm-content').textContent()).toContain('Not proposed.');
    await page.locator('form.edit').getByRole('button', { name: 'Cancel' }).click();
    expect(await page.locator('form.edit').count()).toBe(0);
    expect(fileText()).not.toContain('Not proposed.');
  });
});

describe('handoffs on the page', () => {
  it('created with the form, answered by the owner with a form from the request schema: the task works again', async () => {
    const { page, screenshot } = await open(tokens.alice!);
    await live(page);
    await page.locator('#new-summary').fill('Proofread the intro');
    await page.locator('#new-assignee').fill('bob');
    await page.getByRole('button', { name: 'Create handoff' }).click();
    // The form is cleared as soon as the room accepted it.
    await expect.poll(() => page.locator('#new-summary').inputValue()).toBe('');
    const { handoffs } = await tool('bob', 'handoff_list', { status: 'open' });
    const handoff = handoffs.find((h: { summary: string }) => h.summary === 'Proofread the intro');
    expect(handoff).toMatchObject({ owner: 'alice', assignee: 'bob' });

    await tool('bob', 'handoff_accept', { handoff_id: handoff.handoff_id });
    await tool('bob', 'handoff_request_input', {
      handoff_id: handoff.handoff_id,
      message: 'Which spelling?',
      requested_schema: {
        type: 'object',
        properties: {
          spelling: { type: 'string', title: 'Spelling', enum: ['British', 'American'] },
          words: { type: 'integer', title: 'Word limit', minimum: 50 },
          oxford: { type: 'boolean', title: 'Oxford comma' },
          // Titled choices: the page offers their titles, and sends their values.
          tone: {
            type: 'string',
            title: 'Tone',
            oneOf: [
              { const: 'dry', title: 'Dry' },
              { const: 'warm', title: 'Warm' },
            ],
          },
          parts: {
            type: 'array',
            title: 'Parts',
            items: {
              anyOf: [
                { const: 'intro', title: 'Introduction' },
                { const: 'end', title: 'Conclusion' },
              ],
            },
          },
          // A format the browser has a control for: its own, which checks what is typed.
          contact: { type: 'string', title: 'Contact', format: 'email' },
          due: { type: 'string', title: 'Due', format: 'date' },
        },
        required: ['spelling'],
      },
    });
    const item = page.locator('#handoffs-input_required').locator(`[data-handoff-id="${handoff.handoff_id}"]`);
    await item.waitFor({ timeout: 5_000 });
    expect((await tool('bob', 'handoff_get', { handoff_id: handoff.handoff_id })).task.status).toBe('input_required');
    const form = item.getByRole('form', { name: 'Answer: Which spelling?' });
    await form.getByLabel('Spelling (required)').selectOption('British');
    // Below the form's minimum: the browser says so, and sends nothing.
    await form.getByLabel('Word limit').fill('30');
    expect(await form.evaluate((element) => (element as unknown as { checkValidity(): boolean }).checkValidity())).toBe(
      false,
    );
    await form.getByLabel('Word limit').fill('300');
    await form.getByLabel('Oxford comma').check();
    await form.getByLabel('Tone').selectOption({ label: 'Warm' });
    // Several choices are boxes in a group named by the field, chosen by keyboard as any box is.
    const parts = form.getByRole('group', { name: 'Parts' });
    await parts.getByLabel('Introduction').focus();
    await page.keyboard.press('Space');
    await parts.getByLabel('Conclusion').check();
    expect(await form.getByLabel('Contact').getAttribute('type')).toBe('email');
    expect(await form.getByLabel('Due').getAttribute('type')).toBe('date');
    await form.getByLabel('Contact').fill('not an address');
    expect(await form.evaluate((element) => (element as unknown as { checkValidity(): boolean }).checkValidity())).toBe(
      false,
    );
    await form.getByLabel('Contact').fill('alice@example.com');
    await form.getByLabel('Due').fill('2026-12-31');
    await screenshot('input-request');
    await form.getByRole('button', { name: 'Send answer' }).click();
    await page
      .locator('#handoffs-accepted')
      .locator(`[data-handoff-id="${handoff.handoff_id}"]`)
      .waitFor({ timeout: 5_000 });
    const after = await tool('bob', 'handoff_get', { handoff_id: handoff.handoff_id });
    expect(after.task.status).toBe('working');
    expect(after.handoff.inputs[0].response).toEqual({
      action: 'accept',
      content: {
        spelling: 'British',
        words: 300,
        oxford: true,
        tone: 'warm',
        parts: ['intro', 'end'],
        contact: 'alice@example.com',
        due: '2026-12-31',
      },
    });
    // The answer reads as the form's fields, titled as the request titled them; not as JSON.
    const answered = page.locator(`[data-handoff-id="${handoff.handoff_id}"] .input.answered`);
    await expect.poll(() => answered.locator('.meta').textContent()).toBe('alice answered');
    expect(await answered.locator('dt').allTextContents()).toEqual([
      'Spelling',
      'Word limit',
      'Oxford comma',
      'Tone',
      'Parts',
      'Contact',
      'Due',
    ]);
    // A titled choice reads as its title.
    expect(await answered.locator('dd').allTextContents()).toEqual([
      'British',
      '300',
      'yes',
      'Warm',
      'Introduction, Conclusion',
      'alice@example.com',
      '2026-12-31',
    ]);
    expect(await answered.textContent()).not.toContain('{');
  });

  it('a result is approved on the page; an open handoff is cancelled by its owner', async () => {
    const { page, screenshot } = await open(tokens.alice!);
    await live(page);
    const { handoff } = await tool('alice', 'handoff_create', { summary: 'Summarise the notes', assignee: 'bob' });
    await tool('bob', 'handoff_accept', { handoff_id: handoff.handoff_id });
    await tool('bob', 'handoff_complete', {
      handoff_id: handoff.handoff_id,
      result: {
        content: [{ type: 'text', text: 'Three findings, all minor.' }],
        structuredContent: {
          'the findings of the review, by the section they are in': [{ section: 'Introduction', severity: 'minor' }],
        },
      },
    });
    const ready = page.locator('#handoffs-result_ready').locator(`[data-handoff-id="${handoff.handoff_id}"]`);
    await ready.waitFor({ timeout: 5_000 });
    expect(await ready.locator('.result pre').textContent()).toBe('Three findings, all minor.');
    // A long field name leaves its value room: a field nested in it reads on one line, not a letter a line.
    const nested = ready.locator('.fields .fields dd').first();
    expect(await nested.textContent()).toBe('Introduction');
    const box = (await nested.boundingBox())!;
    expect(box.height).toBeLessThan(30);
    await screenshot('result-ready');
    await ready.getByRole('button', { name: 'Approve result' }).click();
    const decided = page.locator('#handoffs-decided').locator(`[data-handoff-id="${handoff.handoff_id}"]`);
    await decided.waitFor({ timeout: 5_000 });
    expect(await decided.textContent()).toContain('approved by alice');
    expect((await tool('bob', 'handoff_get', { handoff_id: handoff.handoff_id })).handoff.status).toBe('approved');

    const other = (await tool('alice', 'handoff_create', { summary: 'Never mind' })).handoff;
    const open_ = page.locator('#handoffs-open').locator(`[data-handoff-id="${other.handoff_id}"]`);
    await open_.getByRole('button', { name: 'Cancel handoff' }).click();
    await page.locator('#handoffs-decided').locator(`[data-handoff-id="${other.handoff_id}"]`).waitFor();
    expect((await tool('alice', 'handoff_get', { handoff_id: other.handoff_id })).task.status).toBe('cancelled');
  });

  it('work waiting beyond the newest hundred handoffs is still shown: every undecided handoff is read, page by page', async () => {
    const { handoff: waiting } = await tool('bob', 'handoff_create', {
      summary: 'Older, still open',
      assignee: 'alice',
    });
    for (let i = 0; i < 101; i++) {
      const { handoff } = await tool('carol', 'handoff_create', { summary: `Newer ${i}` });
      await rpc(room.mcpUrl, 'tasks/cancel', { taskId: handoff.task_id }, { token: tokens.carol!, tasks: true });
    }
    const { page } = await open(tokens.alice!);
    await live(page);
    await page
      .locator('#handoffs-open')
      .locator(`[data-handoff-id="${waiting.handoff_id}"]`)
      .waitFor({ timeout: 5_000 });
    await rpc(room.mcpUrl, 'tasks/cancel', { taskId: waiting.task_id }, { token: tokens.bob!, tasks: true });
  });

  it('two questions under the same key, on two handoffs: each answer field is its own, and its label fills it', async () => {
    const asked = [];
    for (const summary of ['First of two', 'Second of two']) {
      const { handoff } = await tool('alice', 'handoff_create', { summary, assignee: 'bob' });
      await tool('bob', 'handoff_accept', { handoff_id: handoff.handoff_id });
      await tool('bob', 'handoff_request_input', { handoff_id: handoff.handoff_id, key: 'q1', message: 'Which?' });
      asked.push(handoff);
    }
    const { page } = await open(tokens.alice!);
    await live(page);
    const [first, second] = asked.map((handoff) =>
      page.locator('#handoffs-input_required').locator(`[data-handoff-id="${handoff.handoff_id}"]`),
    );
    await first!.waitFor({ timeout: 5_000 });
    await second!.waitFor({ timeout: 5_000 });
    await first!
      .locator('label')
      .filter({ hasText: /^answer/i })
      .first()
      .click();
    await page.keyboard.type('meant for the first');
    expect(await first!.locator('input[type="text"], textarea').first().inputValue()).toBe('meant for the first');
    expect(await second!.locator('input[type="text"], textarea').first().inputValue()).toBe('');
    for (const handoff of asked) {
      await rpc(room.mcpUrl, 'tasks/cancel', { taskId: handoff.task_id }, { token: tokens.alice!, tasks: true });
    }
  });

  it('a half-filled form survives an update of the handoffs around it', async () => {
    const { page } = await open(tokens.alice!);
    await live(page);
    await page.locator('#new-summary').fill('Half written');
    const { handoff } = await tool('bob', 'handoff_create', { summary: 'Meanwhile, elsewhere' });
    await page.locator(`[data-handoff-id="${handoff.handoff_id}"]`).waitFor();
    expect(await page.locator('#new-summary').inputValue()).toBe('Half written');
  });
});

describe('the assignee on the page', () => {
  /** alice's handoff to bob, accepted by bob over MCP: its task is working. */
  async function working(summary: string): Promise<{ handoff_id: string; task_id: string }> {
    const { handoff } = await tool('alice', 'handoff_create', { summary, assignee: 'bob' });
    await tool('bob', 'handoff_accept', { handoff_id: handoff.handoff_id });
    return handoff;
  }
  const card = (page: Page, group: string, handoffId: string) =>
    page.locator(`#handoffs-${group}`).locator(`[data-handoff-id="${handoffId}"]`);

  it('reports progress by keyboard; the owner sees it in tasks/get and on their page live, a paced report within a second', async () => {
    const handoff = await working('Translate the guide');
    const owner = await open(tokens.alice!);
    await live(owner.page);
    await owner.page.evaluate('window.sameDocument = true');
    const { page, screenshot } = await open(tokens.bob!);
    await live(page);
    const mine = card(page, 'accepted', handoff.handoff_id);
    const form = mine.getByRole('form', { name: 'Report progress' });
    await form.waitFor();

    // A half-written result survives the progress reports around it.
    await mine.getByText('Complete…').click();
    await mine.getByLabel('Result (required)').fill('Half of the result');

    await form.getByLabel('What you are doing now (required)').focus();
    await page.keyboard.type('Chapter 2');
    await page.keyboard.press('Tab');
    await page.keyboard.type('2');
    await page.keyboard.press('Tab');
    await page.keyboard.type('5');
    await page.keyboard.press('Enter');
    await expect.poll(() => form.getByRole('status').textContent()).toBe('Reported.');
    // Cleared as the room accepted it; the total stays for the next report.
    expect(await form.getByLabel('What you are doing now (required)').inputValue()).toBe('');
    expect(await form.getByLabel('Total').inputValue()).toBe('5');

    const got = await rpc(room.mcpUrl, 'tasks/get', { taskId: handoff.task_id }, { token: tokens.alice!, tasks: true });
    expect(got.body.result).toMatchObject({ status: 'working', statusMessage: 'Chapter 2' });
    const read = await room.rest('GET', `/workspace/handoffs/${handoff.handoff_id}`);
    expect(read.body.handoff.progress).toMatchObject({ message: 'Chapter 2', progress: 2, total: 5, by: 'bob' });
    const theirs = card(owner.page, 'accepted', handoff.handoff_id);
    await expect.poll(() => theirs.locator('.progress').textContent()).toBe('bob: Chapter 2 (2 of 5)');
    await expect.poll(() => mine.locator('.progress').textContent()).toBe('bob: Chapter 2 (2 of 5)');

    // A second report within the second waits: the page says it will be shown shortly, and it is.
    await form.getByLabel('What you are doing now (required)').fill('Chapter 3');
    await form.getByLabel('Done').fill('3');
    await form.getByRole('button', { name: 'Report progress' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toMatch(/will be shown within a second/);
    await expect
      .poll(() => theirs.locator('.progress').textContent(), { timeout: 2_500 })
      .toBe('bob: Chapter 3 (3 of 5)');
    await expect.poll(() => mine.locator('.progress').textContent()).toBe('bob: Chapter 3 (3 of 5)');
    // Shown now: the page says so.
    await expect.poll(() => form.getByRole('status').textContent()).toBe('Reported.');
    expect(await owner.page.evaluate('window.sameDocument')).toBe(true);
    expect(await mine.getByLabel('Result (required)').inputValue()).toBe('Half of the result');
    await screenshot('assignee-progress');
    await owner.screenshot('owner-sees-progress');
    await rpc(room.mcpUrl, 'tasks/cancel', { taskId: handoff.task_id }, { token: tokens.alice!, tasks: true });
  });

  it("completes with a text result: result ready, and the owner's page shows it with Approve; a note goes with the rejection", async () => {
    const handoff = await working('Summarise chapter 4');
    const owner = await open(tokens.alice!);
    await live(owner.page);
    const { page } = await open(tokens.bob!);
    await live(page);
    const mine = card(page, 'accepted', handoff.handoff_id);
    // By keyboard: the disclosure opens with Enter, the form sends with its button.
    await mine.getByText('Complete…').focus();
    await page.keyboard.press('Enter');
    const form = mine.getByRole('form', { name: 'Complete' });
    await form.getByLabel('Result (required)').focus();
    await page.keyboard.type('Chapter 4 in three lines.');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Line two.');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await card(page, 'result_ready', handoff.handoff_id).waitFor({ timeout: 5_000 });
    const got = await tool('alice', 'handoff_get', { handoff_id: handoff.handoff_id });
    expect(got.handoff.status).toBe('result_ready');
    expect(got.task.status).toBe('completed');
    expect(got.handoff.result).toEqual({ content: [{ type: 'text', text: 'Chapter 4 in three lines.\nLine two.' }] });
    // bob has no approve: the result is there, with nothing for him to press.
    expect(await card(page, 'result_ready', handoff.handoff_id).locator('form, button').count()).toBe(0);

    const ready = card(owner.page, 'result_ready', handoff.handoff_id);
    await ready.waitFor({ timeout: 5_000 });
    expect(await ready.locator('.result pre').textContent()).toBe('Chapter 4 in three lines.\nLine two.');
    expect(await ready.getByRole('button', { name: 'Approve result' }).count()).toBe(1);
    await owner.screenshot('owner-sees-result');
    await ready.getByLabel('Note (optional)').fill('Needs the dates');
    await ready.getByRole('button', { name: 'Reject result' }).click();
    const decided = card(owner.page, 'decided', handoff.handoff_id);
    await decided.waitFor({ timeout: 5_000 });
    expect(await decided.textContent()).toContain('rejected by alice: Needs the dates');
    expect((await tool('bob', 'handoff_get', { handoff_id: handoff.handoff_id })).handoff.decision).toMatchObject({
      decision: 'rejected',
      by: 'alice',
      note: 'Needs the dates',
    });
  });

  it("asks the owner: the owner's page shows the answer form, and the answer puts the task back to work", async () => {
    const handoff = await working('Pick the examples');
    const owner = await open(tokens.alice!);
    await live(owner.page);
    const { page, screenshot } = await open(tokens.bob!);
    await live(page);
    const mine = card(page, 'accepted', handoff.handoff_id);
    await mine.getByText('Ask the owner…').click();
    const form = mine.getByRole('form', { name: 'Ask the owner' });
    await form.getByLabel('Question for alice (required)').fill('Two examples or three?');
    await screenshot('assignee-asks');
    await form.getByRole('button', { name: 'Ask the owner' }).click();
    // bob's card moves to input required, and offers no tools while the task waits.
    const waiting = card(page, 'input_required', handoff.handoff_id);
    await waiting.waitFor({ timeout: 5_000 });
    expect(await waiting.getByRole('form').count()).toBe(0);
    expect(await waiting.textContent()).toContain('waiting for alice to answer');
    expect((await tool('alice', 'handoff_get', { handoff_id: handoff.handoff_id })).task.status).toBe('input_required');

    const answer = card(owner.page, 'input_required', handoff.handoff_id).getByRole('form', {
      name: 'Answer: Two examples or three?',
    });
    await answer.waitFor({ timeout: 5_000 });
    await answer.getByLabel('Answer (required)', { exact: true }).fill('Three');
    await answer.getByRole('button', { name: 'Send answer' }).click();
    // Back to work: bob's page offers the tools again.
    await card(page, 'accepted', handoff.handoff_id)
      .getByRole('form', { name: 'Report progress' })
      .waitFor({ timeout: 5_000 });
    const after = await tool('bob', 'handoff_get', { handoff_id: handoff.handoff_id });
    expect(after.task.status).toBe('working');
    expect(after.handoff.inputs[0].response).toEqual({ action: 'accept', content: { answer: 'Three' } });
  });

  it('reports failure: the task fails and the handoff is cancelled with the message', async () => {
    const handoff = await working('Find the original');
    const { page } = await open(tokens.bob!);
    await live(page);
    const mine = card(page, 'accepted', handoff.handoff_id);
    await mine.getByText('Report failure…').click();
    const form = mine.getByRole('form', { name: 'Report failure' });
    await form.getByLabel('What went wrong (required)').fill('The archive is gone');
    await form.getByRole('button', { name: 'Report failure' }).click();
    const decided = card(page, 'decided', handoff.handoff_id);
    await decided.waitFor({ timeout: 5_000 });
    expect(await decided.locator('.result pre').textContent()).toBe('failed: The archive is gone');
    const got = await tool('alice', 'handoff_get', { handoff_id: handoff.handoff_id });
    expect(got.handoff).toMatchObject({ status: 'cancelled', error: { code: -32603, message: 'The archive is gone' } });
    expect(got.task.status).toBe('failed');
  });

  it('nobody but the assignee with write sees these forms: not the owner, another writer, or the assignee reading only', async () => {
    const handoff = await working('Only for bob');
    const bobReads = await room.session('bob', ['read']);
    for (const [who, token] of [
      ['alice', tokens.alice!],
      ['carol', tokens.carol!],
      ['bob reading', bobReads],
    ] as const) {
      const { page } = await open(token);
      await live(page);
      const theirs = card(page, 'accepted', handoff.handoff_id);
      await theirs.waitFor();
      for (const name of ['Report progress', 'Complete', 'Ask the owner', 'Report failure']) {
        expect(await theirs.getByRole('form', { name }).count(), `${who}: ${name}`).toBe(0);
      }
      expect(await theirs.locator('.assignee, details').count(), who).toBe(0);
    }
  });

  it("at 400 px: the assignee's forms fit without a horizontal scroll", async () => {
    const handoff = await working('Narrow work');
    const { page, screenshot } = await open(tokens.bob!, { colorScheme: 'dark', width: 400, height: 900 });
    await live(page);
    const mine = card(page, 'accepted', handoff.handoff_id);
    await mine.getByRole('form', { name: 'Report progress' }).waitFor();
    for (const more of ['Complete…', 'Ask the owner…', 'Report failure…']) await mine.getByText(more).click();
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(400);
    await screenshot('assignee-narrow-dark');
    await mine.screenshot({ path: path.join(SCREENSHOTS, 'assignee-card-narrow-dark.png') });
  });
});

describe('a session without approve', () => {
  it('sees no Approve or Reject button, and the room refuses the approval anyway (403)', async () => {
    const { proposal } = await tool('bob', 'workspace_propose', {
      base_revision: await revision(),
      content: `${fileText()}\nFor carol to see.\n`,
      summary: 'Carol cannot approve this',
    });
    const { handoff } = await tool('carol', 'handoff_create', { summary: 'Carol asks', assignee: 'bob' });
    await tool('bob', 'handoff_accept', { handoff_id: handoff.handoff_id });
    await tool('bob', 'handoff_complete', {
      handoff_id: handoff.handoff_id,
      result: { content: [{ type: 'text', text: 'Done for carol' }] },
    });
    const { page, screenshot } = await open(tokens.carol!);
    await live(page);
    const card = page.locator(`[data-proposal-id="${proposal.proposal_id}"]`);
    await card.waitFor();
    const ready = page.locator(`[data-handoff-id="${handoff.handoff_id}"]`);
    await ready.waitFor();
    expect(await page.locator('#who').textContent()).toBe('carol · read, write');
    for (const name of ['Approve', 'Reject', 'Approve result', 'Reject result']) {
      expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    }
    expect(await ready.textContent()).toContain('Done for carol');
    await screenshot('without-approve');

    const refused = await page.evaluate(
      async ([id, token]) => {
        const response = await fetch(`/workspace/proposals/${id}/approve`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: '{}',
        });
        return { status: response.status, body: await response.json() };
      },
      [proposal.proposal_id, tokens.carol!],
    );
    expect(refused).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect((await tool('bob', 'proposal_get', { proposal_id: proposal.proposal_id })).proposal.status).toBe('open');
    // The page's own refused request is logged by the browser as a failed resource.
    expectedErrors = /status of 403/;
  });
});

describe('four eyes', () => {
  it('no Approve or Reject on one’s own proposal or on the result of one’s own work; on another’s, as before', async () => {
    const fourEyes = (on: boolean) => room.rest('POST', '/workspace/settings', { four_eyes: on });
    expect((await fourEyes(true)).status).toBe(200);
    try {
      const approver = await room.session('bob', ['read', 'write', 'approve']);
      const { page } = await open(approver);
      await live(page);
      const base = await revision();
      const own = (
        await tool('bob', 'workspace_propose', {
          base_revision: base,
          content: `${fileText()}\nBob's.\n`,
          summary: 'His own',
        })
      ).proposal;
      const other = (
        await tool('carol', 'workspace_propose', {
          base_revision: base,
          content: `${fileText()}\nCarol's.\n`,
          summary: 'Carol’s',
        })
      ).proposal;
      const ownCard = page.locator(`[data-proposal-id="${own.proposal_id}"]`);
      const otherCard = page.locator(`[data-proposal-id="${other.proposal_id}"]`);
      await otherCard.getByRole('button', { name: 'Approve' }).waitFor({ timeout: 5_000 });
      expect(await ownCard.getByRole('button').allTextContents()).toEqual(['Withdraw']);
      expect(await ownCard.getByLabel('Note (optional)').count()).toBe(0);

      const { handoff } = await tool('carol', 'handoff_create', { summary: 'Bob does it', assignee: 'bob' });
      await tool('bob', 'handoff_accept', { handoff_id: handoff.handoff_id });
      await tool('bob', 'handoff_complete', {
        handoff_id: handoff.handoff_id,
        result: { content: [{ type: 'text', text: 'Done.' }] },
      });
      const ready = page.locator('#handoffs-result_ready').locator(`[data-handoff-id="${handoff.handoff_id}"]`);
      await ready.waitFor({ timeout: 5_000 });
      expect(await ready.getByRole('button', { name: /result/ }).count()).toBe(0);
      for (const proposal of [own, other])
        await tool(proposal === own ? 'bob' : 'carol', 'proposal_withdraw', { proposal_id: proposal.proposal_id });
      await tool('alice', 'handoff_approve', { handoff_id: handoff.handoff_id });
    } finally {
      await fourEyes(false);
    }
  });
});

describe('a session that only reads', () => {
  it('sees the room and no action at all: no form to ask for work, no Accept, Cancel, Withdraw or decision', async () => {
    await room.addParticipant('dana');
    const token = await room.session('dana', ['read']);
    const { handoff } = await tool('bob', 'handoff_create', { summary: 'Open to anyone' });
    const { page } = await open(token);
    await live(page);
    await page.locator(`[data-handoff-id="${handoff.handoff_id}"]`).waitFor();
    await page.locator('[data-proposal-id]').first().waitFor();
    expect(await page.locator('#who').textContent()).toBe('dana · read');
    expect(await page.locator('#create-handoff').count()).toBe(0);
    // Only the history's pages remain to press.
    expect(await page.locator('#room button').allTextContents()).toEqual(['Earlier', 'Later']);
    expect(await page.locator('#room form').count()).toBe(0);
  });
});

describe('hostile text', () => {
  const HOSTILE = `<img src=x onerror="window.ran=1;alert(1)"> <script>window.ran=2</script> ![pic](/page/x.png) [js](javascript:alert(3))`;

  it('in a summary and in the artifact shows as text and runs nothing', async () => {
    const { page, requests, screenshot } = await open(tokens.alice!);
    await live(page);
    const { handoff } = await tool('bob', 'handoff_create', { summary: HOSTILE });
    const { proposal } = await tool('bob', 'workspace_propose', {
      base_revision: await revision(),
      content: `# Hostile\n\n${HOSTILE}\n`,
      summary: HOSTILE,
    });
    await tool('alice', 'proposal_approve', { proposal_id: proposal.proposal_id });
    await expect.poll(() => page.locator('#artifact-body h1').textContent()).toBe('Hostile');
    const item = page.locator(`[data-handoff-id="${handoff.handoff_id}"] .summary`);
    expect(await item.textContent()).toBe(HOSTILE);
    const body = page.locator('#artifact-body');
    expect(await body.textContent()).toContain('<img src=x onerror="window.ran=1;alert(1)">');
    expect(await body.textContent()).toContain('<script>window.ran=2</script>');
    expect(await page.locator('#room img, #room script').count()).toBe(0);
    // A Markdown image is a link, never loaded; a javascript: link is not a link.
    expect(await body.locator('a.image-link').getAttribute('href')).toBe('/page/x.png');
    expect(await body.locator('a[href^="javascript"]').count()).toBe(0);
    await page.waitForTimeout(200);
    expect(await page.evaluate('window.ran')).toBeUndefined();
    expect(requests.filter((url) => /\/x(\.png)?$/.test(url))).toEqual([]);
    await screenshot('hostile-text');
  });

  it("in a proposal's diff shows as text and runs nothing", async () => {
    const { page, requests } = await open(tokens.alice!);
    await live(page);
    const { proposal } = await tool('bob', 'workspace_propose', {
      base_revision: await revision(),
      content: `${fileText()}${HOSTILE}\n`,
      summary: 'Hostile, left open',
    });
    const card = page.locator(`[data-proposal-id="${proposal.proposal_id}"]`);
    const added = card.locator('.d2h-ins .d2h-code-line-ctn');
    await expect.poll(async () => (await added.allTextContents()).map((t) => t.trim())).toContain(HOSTILE);
    expect(await page.locator('#room img, #room script').count()).toBe(0);
    await page.waitForTimeout(200);
    expect(await page.evaluate('window.ran')).toBeUndefined();
    expect(requests.filter((url) => /\/x(\.png)?$/.test(url))).toEqual([]);
    await tool('bob', 'proposal_withdraw', { proposal_id: proposal.proposal_id });
  });

  it('no string but markdown-it and diff2html output becomes HTML: the page enforces Trusted Types', async () => {
    const { page } = await open(tokens.alice!);
    await live(page);
    const outcome = await page.evaluate(`(() => {
      try {
        document.body.insertAdjacentHTML('beforeend', '<b id="smuggled">x</b>');
        return 'inserted';
      } catch (error) {
        return error.name;
      }
    })()`);
    expect(outcome).toBe('TypeError');
    expect(await page.locator('#smuggled').count()).toBe(0);
    // Nor can a script make a policy of its own: the page's two are the only names allowed.
    const policy = await page.evaluate(`(() => {
      try {
        trustedTypes.createPolicy('smuggler', { createHTML: (s) => s });
        return 'made';
      } catch (error) {
        return error.name;
      }
    })()`);
    expect(policy).toBe('TypeError');
    // Refused by the policy, which the browser reports on the console.
    expectedErrors = /TrustedHTML|TrustedTypePolicy named 'smuggler'/;
  });
});

describe('reading', () => {
  it('at 400 px in a dark system theme: one column, no horizontal scroll, dark colours', async () => {
    const { page, screenshot } = await open(tokens.alice!, { colorScheme: 'dark', width: 400, height: 900 });
    await live(page);
    await page.locator('[data-handoff-id]').first().waitFor();
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(400);
    expect(await page.evaluate('getComputedStyle(document.documentElement).backgroundColor')).toBe('rgb(13, 17, 23)');
    const artifact = await page.locator('#artifact').boundingBox();
    const handoffs = await page.locator('#handoffs').boundingBox();
    expect(handoffs!.y).toBeGreaterThan(artifact!.y + artifact!.height - 1);
    await screenshot('narrow-dark');
  });

  it("the editor's Markdown highlighting reads on the dark panel: every token at 4.5:1 or more", async () => {
    const { page } = await open(tokens.bob!, { colorScheme: 'dark' });
    await live(page);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('textbox', { name: 'Text', exact: true }).waitFor();
    const colours = (await page.locator('.cm-editor').evaluate((editor) => {
      const style = (element: unknown) => (globalThis as any).getComputedStyle(element);
      const spans = Array.from((editor as any).querySelectorAll('.cm-line span')) as unknown[];
      return { background: style(editor).backgroundColor, tokens: spans.map((span) => style(span).color) };
    })) as { background: string; tokens: string[] };
    const luminance = (rgb: string) => {
      const [r, g, b] = rgb
        .match(/\d+/g)!
        .slice(0, 3)
        .map((c) => {
          const v = Number(c) / 255;
          return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
        }) as [number, number, number];
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const contrast = (a: string, b: string) => {
      const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
      return (light + 0.05) / (dark + 0.05);
    };
    expect(colours.tokens.length).toBeGreaterThan(2);
    for (const colour of new Set(colours.tokens)) {
      expect(contrast(colour, colours.background), colour).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('history by pages of 20, moved through by keyboard', async () => {
    // Enough decisions for two pages and more.
    for (let i = 0; i < 22; i++) {
      const { proposal } = await tool('bob', 'workspace_propose', {
        base_revision: await revision(),
        content: `# Draft ${i}\n`,
        summary: 'A change',
      });
      await tool('alice', 'proposal_reject', { proposal_id: proposal.proposal_id, note: `no ${i}` });
    }
    const { page, screenshot } = await open(tokens.alice!);
    await live(page);
    // Newest first: what happened lately, then Earlier goes back.
    const idsShown = async () =>
      (await page
        .locator('#history-list li')
        .evaluateAll((items) => items.map((item) => Number(item.getAttribute('data-entry-id'))))) as number[];
    await expect.poll(() => page.locator('#history-list li').count()).toBe(20);
    expect(await page.locator('#history-list li').first().textContent()).toMatch(/alice rejected proposal .* — no 21$/);
    expect(await page.locator('#history-later').isDisabled()).toBe(true);
    const firstPage = await idsShown();
    expect(firstPage).toEqual([...firstPage].sort((a, b) => b - a));
    await page.locator('#history-earlier').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#history-page').textContent()).toBe('page 2');
    const secondPage = await idsShown();
    expect(secondPage).toEqual([...secondPage].sort((a, b) => b - a));
    expect(Math.max(...secondPage)).toBeLessThan(Math.min(...firstPage));
    await screenshot('history-page-2');
    await page.locator('#history-later').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#history-page').textContent()).toBe('page 1');
  });
});

describe('the keyboard after an action', () => {
  /** The id of the focused element, or its tag when it has none. */
  const focused = (page: Page) => page.evaluate('document.activeElement?.id || document.activeElement?.tagName');

  it('creating a handoff says so, and the focus stays on the button that sent it', async () => {
    const { page } = await open(tokens.alice!);
    await live(page);
    await page.locator('#new-summary').fill('Said when created');
    await page.getByRole('button', { name: 'Create handoff' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#create-handoff [role="status"]').textContent()).toBe('Handoff created.');
    expect(await page.locator('#new-summary').inputValue()).toBe('');
    await expect.poll(() => page.evaluate('document.activeElement?.textContent')).toBe('Create handoff');
    expect(await page.locator('#create-handoff [role="status"]').getAttribute('class')).not.toContain('error');
  });

  it('a refused action leaves the focus on its button, its refusal beside it', async () => {
    const { page } = await open(tokens.alice!);
    await live(page);
    await page.locator('#new-summary').fill('Nobody by that name');
    await page.locator('#new-assignee').fill('nobody');
    await page.getByRole('button', { name: 'Create handoff' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#create-handoff [role="status"]').textContent()).toMatch(/nobody/);
    await expect.poll(() => page.evaluate('document.activeElement?.textContent')).toBe('Create handoff');
    // The browser logs the refused POST itself; the page logs nothing.
    expectedErrors = /status of 400/;
  });

  it('accepting a handoff: its card is drawn in its new group and takes the focus there', async () => {
    const { handoff } = await tool('alice', 'handoff_create', { summary: 'Follow me', assignee: 'bob' });
    const { page, screenshot } = await open(tokens.bob!);
    await live(page);
    const card = page.locator(`#handoffs-open [data-handoff-id="${handoff.handoff_id}"]`);
    await card.getByRole('button', { name: 'Accept' }).focus();
    await page.keyboard.press('Enter');
    await page.locator(`#handoffs-accepted [data-handoff-id="${handoff.handoff_id}"]`).waitFor({ timeout: 5_000 });
    await expect.poll(() => focused(page)).toBe(`handoff-card-${handoff.handoff_id}`);
    await screenshot('card-focused-after-accept');
    // Tab goes on from the card: to the first control in it.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.closest(".card")?.id')).toBe(
      `handoff-card-${handoff.handoff_id}`,
    );
  });

  it('deciding a proposal: its card is gone, and the focus is on the Proposals heading', async () => {
    const { page } = await open(tokens.alice!);
    await live(page);
    const { proposal } = await tool('bob', 'workspace_propose', {
      base_revision: await revision(),
      content: `${fileText()}\nRejected by keyboard.\n`,
      summary: 'Reject me',
    });
    const card = page.locator(`[data-proposal-id="${proposal.proposal_id}"]`);
    await card.getByRole('button', { name: 'Reject' }).focus();
    await page.keyboard.press('Enter');
    await card.waitFor({ state: 'detached' });
    await expect.poll(() => focused(page)).toBe('proposals-heading');
  });
});

describe('work kept while the room changes around it', () => {
  const card = (page: Page, group: string, handoffId: string) =>
    page.locator(`#handoffs-${group}`).locator(`[data-handoff-id="${handoffId}"]`);

  it("the assignee's half-written result survives their own question and its answer, the card moving group and back", async () => {
    const { handoff } = await tool('alice', 'handoff_create', { summary: 'Ask, then finish', assignee: 'bob' });
    await tool('bob', 'handoff_accept', { handoff_id: handoff.handoff_id });
    const { page } = await open(tokens.bob!);
    await live(page);
    const mine = card(page, 'accepted', handoff.handoff_id);
    await mine.getByText('Complete…').click();
    await mine.getByLabel('Result (required)').fill('Half of the result');
    await mine.getByRole('form', { name: 'Report progress' }).getByLabel('Total').fill('7');
    await tool('bob', 'handoff_request_input', { handoff_id: handoff.handoff_id, key: 'q', message: 'Which?' });
    const waiting = card(page, 'input_required', handoff.handoff_id);
    await waiting.waitFor({ timeout: 5_000 });
    // The tools wait with the question, hidden, and come back with what was typed.
    expect(await waiting.locator('section.assignee').isHidden()).toBe(true);
    await tool('alice', 'handoff_answer', {
      handoff_id: handoff.handoff_id,
      response: { action: 'accept', content: { answer: 'this one' } },
    });
    await mine.waitFor({ timeout: 5_000 });
    expect(await mine.locator('section.assignee').isVisible()).toBe(true);
    expect(await mine.getByLabel('Result (required)').inputValue()).toBe('Half of the result');
    expect(await mine.getByRole('form', { name: 'Report progress' }).getByLabel('Total').inputValue()).toBe('7');
    await rpc(room.mcpUrl, 'tasks/cancel', { taskId: handoff.task_id }, { token: tokens.alice!, tasks: true });
  });

  it("an answer form keeps the owner's choices when another question arrives; defaults and titled enums are the form's", async () => {
    const { handoff } = await tool('alice', 'handoff_create', { summary: 'Two questions', assignee: 'bob' });
    await tool('bob', 'handoff_accept', { handoff_id: handoff.handoff_id });
    await tool('bob', 'handoff_request_input', {
      handoff_id: handoff.handoff_id,
      key: 'first',
      message: 'How should it read?',
      requested_schema: {
        type: 'object',
        properties: {
          spelling: { type: 'string', title: 'Spelling', enum: ['uk', 'us'], enumNames: ['British', 'American'] },
          size: { type: 'string', title: 'Size', enum: ['s', 'm', 'l'], default: 'm' },
          notify: { type: 'boolean', title: 'Notify me', description: 'by mail', default: true },
          count: { type: 'integer', title: 'Copies', default: 2 },
          parts: { type: 'array', title: 'Parts', items: { enum: ['intro', 'body', 'end'] } },
        },
      },
    });
    const { page } = await open(tokens.alice!);
    await live(page);
    const form = card(page, 'input_required', handoff.handoff_id).getByRole('form', {
      name: 'Answer: How should it read?',
    });
    await form.waitFor({ timeout: 5_000 });
    // The schema's defaults, and enumNames as the choices' labels.
    expect(await form.getByLabel('Size').inputValue()).toBe('m');
    expect(await form.getByLabel('Notify me').isChecked()).toBe(true);
    expect(await form.getByLabel('Copies').inputValue()).toBe('2');
    expect(await form.getByLabel('Notify me').getAttribute('aria-describedby')).toMatch(/-hint$/);
    await form.getByLabel('Spelling').selectOption({ label: 'British' });
    await form.getByLabel('Size').selectOption('l');
    const parts = form.getByRole('group', { name: 'Parts' });
    await parts.getByLabel('intro').check();
    await parts.getByLabel('end').check();
    await tool('bob', 'handoff_request_input', { handoff_id: handoff.handoff_id, key: 'second', message: 'And?' });
    await card(page, 'input_required', handoff.handoff_id).getByRole('form', { name: 'Answer: And?' }).waitFor();
    expect(await form.getByLabel('Spelling').inputValue()).toBe('uk');
    expect(await form.getByLabel('Size').inputValue()).toBe('l');
    expect(await Promise.all(['intro', 'body', 'end'].map((part) => parts.getByLabel(part).isChecked()))).toEqual([
      true,
      false,
      true,
    ]);
    // Sent with Enter from a field: the form goes with its question, and the focus to the card, not the page's body.
    await form.getByLabel('Copies').focus();
    await page.keyboard.press('Enter');
    await expect
      .poll(
        async () => (await tool('bob', 'handoff_get', { handoff_id: handoff.handoff_id })).handoff.inputs[0].response,
      )
      .toMatchObject({
        action: 'accept',
        content: { spelling: 'uk', size: 'l', notify: true, count: 2, parts: ['intro', 'end'] },
      });
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe(`handoff-card-${handoff.handoff_id}`);
    await rpc(room.mcpUrl, 'tasks/cancel', { taskId: handoff.task_id }, { token: tokens.alice!, tasks: true });
  });

  it("a proposal's focused button keeps the focus when a revision lands and its card is drawn again", async () => {
    const base = await revision();
    const { page } = await open(tokens.alice!);
    await live(page);
    const { proposal } = await tool('bob', 'workspace_propose', {
      base_revision: base,
      content: `${fileText()}\nKept in focus.\n`,
      summary: 'Keep my focus',
    });
    const reject = page.locator(`[data-proposal-id="${proposal.proposal_id}"]`).getByRole('button', { name: 'Reject' });
    await reject.focus();
    const other = await tool('carol', 'workspace_propose', {
      base_revision: base,
      content: `Landed first.\n${fileText()}`,
      summary: 'Lands first',
    });
    await tool('alice', 'proposal_approve', { proposal_id: other.proposal.proposal_id });
    await expect.poll(() => page.locator('#artifact-revision').textContent()).toMatch(/approved by alice/);
    await expect
      .poll(() => page.evaluate('document.activeElement?.closest(".card")?.dataset.proposalId'))
      .toBe(proposal.proposal_id);
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Reject');
    // The button names its proposal to a screen reader.
    const described = await reject.getAttribute('aria-describedby');
    expect(await page.locator(`#${described}`).textContent()).toBe('Keep my focus');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#announce').textContent()).toBe('Proposal rejected: Keep my focus');
  });

  it('a form sent with Enter from its field keeps the focus in the field; the progress card says no number it was not given', async () => {
    const { handoff } = await tool('alice', 'handoff_create', { summary: 'Enter to send', assignee: 'bob' });
    await tool('bob', 'handoff_accept', { handoff_id: handoff.handoff_id });
    const { page } = await open(tokens.bob!);
    await live(page);
    const form = card(page, 'accepted', handoff.handoff_id).getByRole('form', { name: 'Report progress' });
    await form.getByLabel('Total').fill('5');
    await form.getByLabel('What you are doing now (required)').focus();
    await page.keyboard.type('Reading');
    await page.keyboard.press('Enter');
    await expect.poll(() => form.getByRole('status').textContent()).toBe('Reported.');
    expect(await page.evaluate('document.activeElement?.id')).toBe(`progress-message-${handoff.handoff_id}`);
    await expect
      .poll(() => card(page, 'accepted', handoff.handoff_id).locator('.progress').textContent())
      .toBe('bob: Reading (5 to do)');
    await rpc(room.mcpUrl, 'tasks/cancel', { taskId: handoff.task_id }, { token: tokens.alice!, tasks: true });
  });

  it("the file's headings sit under the page's to a screen reader", async () => {
    const { page } = await open(tokens.alice!);
    await live(page);
    await expect.poll(() => page.locator('#artifact-body h1').first().getAttribute('aria-level')).toBe('3');
  });
});

describe('the room restarts', () => {
  it('the page reconnects to the room on the same port, reads everything again and stays live', async () => {
    const { page, screenshot } = await open(tokens.alice!);
    await live(page);
    const port = Number(new URL(room.baseUrl).port);
    await served.stop();
    await page.locator('#live[data-state="reconnecting"]').waitFor({ timeout: 5_000 });
    await screenshot('reconnecting');
    // Meanwhile the file changes: the page must read it again once back.
    writeFileSync(file, '# Changed while the room was down\n');
    served = await ceServe(file, { port });
    room = roomOperator(file);
    await live(page);
    await expect
      .poll(() => page.locator('#artifact-body h1').textContent(), { timeout: 5_000 })
      .toBe('Changed while the room was down');
    const { handoff } = await tool('bob', 'handoff_create', { summary: 'After the restart' });
    await page.locator(`[data-handoff-id="${handoff.handoff_id}"]`).waitFor({ timeout: 5_000 });
    // While the room was down the browser logged its failed requests, in
    // whichever words the moment of the stop gave them (refused, reset,
    // empty, cut short, or on a socket no longer connected).
    expectedErrors =
      /ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE|ERR_CONNECTION_RESET|ERR_SOCKET_NOT_CONNECTED|ERR_INCOMPLETE_CHUNKED_ENCODING/;
  }, 60_000);
});

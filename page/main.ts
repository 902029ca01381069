// The room's page. It signs in with the session token from the address's
// fragment (#token=..., as ce open prints it) or pasted in, keeps it in
// sessionStorage only and takes it out of the address bar. Then it asks the
// room who the session is (GET /workspace/session) and shows only the
// actions that session may take; the room refuses the others anyway.
import type {
  ArtifactReadOutput,
  Capability,
  ProposalListOutput,
  SessionGetOutput,
  WorkspaceHistoryOutput,
} from '../generated/types.js';
import { isSignedOut, RoomApi } from './api.js';
import type { PageContext } from './context.js';
import { $, h } from './dom.js';
import { focusKeeper } from './focus.js';
import { startLive, type View } from './live.js';
import { ArtifactPanel } from './panels/artifact.js';
import { createHandoffForm } from './panels/handoffs/create.js';
import { GROUPS, type Group } from './panels/handoffs/groups.js';
import { renderHandoffs } from './panels/handoffs/list.js';
import { HISTORY_PAGE, HistoryPager } from './panels/history.js';
import { readHandoffs, readOpenProposals } from './lists.js';
import { renderProposals } from './panels/proposals.js';
import { showSignIn, skipTo, TOKEN_KEY, tokenFromAddress } from './sign-in.js';

const SESSION_CHECK_MS = 15_000;

/** Tells a screen reader what an action did (a live region of the page's own): emptied first, so the same words are said again. */
function announce(text: string): void {
  $('announce').textContent = '';
  requestAnimationFrame(() => ($('announce').textContent = text));
}

const REFUSED =
  'This session was not accepted: the token may be mistyped, expired or revoked. Ask for a new link (ce open FILE --participant NAME) or paste a token below.';

let signedIn: { stop(): void } | null = null;

function signOut(message: string): void {
  signedIn?.stop();
  signedIn = null;
  sessionStorage.removeItem(TOKEN_KEY);
  showSignIn(message);
}

async function signIn(token: string): Promise<void> {
  const api = new RoomApi(token);
  let me: SessionGetOutput;
  try {
    me = await api.rest((room) => room.GET('/workspace/session'));
  } catch (error) {
    if (isSignedOut(error)) return signOut(REFUSED);
    return showSignIn(`The room could not be reached (${(error as Error).message}). Reload the page to try again.`);
  }
  openRoom(api, me);
}

function openRoom(api: RoomApi, me: SessionGetOutput): void {
  let stopped = false;
  const refused = (error: unknown): boolean => {
    if (!isSignedOut(error)) return false;
    if (!stopped) signOut(REFUSED);
    return true;
  };

  const can = (capability: Capability) => me.capabilities.includes(capability);
  const context: PageContext = {
    api,
    me,
    can,
    async act({ control, status, run, changes, done, said }) {
      const refocus = focusKeeper(control);
      (control as HTMLButtonElement).disabled = true;
      status.textContent = '';
      status.classList.remove('error');
      try {
        await run();
      } catch (error) {
        (control as HTMLButtonElement).disabled = false;
        if (refused(error)) return;
        status.textContent = (error as Error).message;
        status.classList.add('error');
        return refocus();
      }
      (control as HTMLButtonElement).disabled = false;
      done?.();
      if (said) announce(said);
      await Promise.all(changes.map(refresh));
      refocus();
    },
  };

  // The room's sections, built fresh for this session.
  const artifactSection = h('section', { id: 'artifact', 'aria-labelledby': 'artifact-heading', class: 'panel' });
  const artifactPanel = new ArtifactPanel(artifactSection, context);
  const proposalList = h('ul', { class: 'cards', id: 'proposal-list' });
  const noProposals = h('p', { class: 'meta' }, 'No open proposals.');
  const proposalsSection = h(
    'section',
    { id: 'proposals', 'aria-labelledby': 'proposals-heading', class: 'panel' },
    h('h2', { id: 'proposals-heading' }, 'Proposals'),
    noProposals,
    proposalList,
  );
  const groups = {} as Record<Group, { list: HTMLElement; empty: HTMLElement }>;
  const handoffsSection = h(
    'section',
    { id: 'handoffs', 'aria-labelledby': 'handoffs-heading', class: 'panel' },
    h('h2', { id: 'handoffs-heading' }, 'Handoffs'),
    can('write') ? createHandoffForm(context) : null,
    GROUPS.map((group) => {
      const list = h('ul', { class: 'cards', id: `handoffs-${group.id}` });
      const empty = h('p', { class: 'meta' }, 'none');
      groups[group.id] = { list, empty };
      return h(
        'section',
        { class: 'group', 'aria-labelledby': `group-${group.id}` },
        h('h3', { id: `group-${group.id}` }, group.title),
        empty,
        list,
      );
    }),
  );
  const historySection = h('section', { id: 'history', 'aria-labelledby': 'history-heading', class: 'panel' });
  const history = new HistoryPager(historySection, (before) =>
    api.rest((room) =>
      room.GET('/workspace/history', {
        params: { query: { before, limit: HISTORY_PAGE } },
      }),
    ),
  );

  $('sign-in').hidden = true;
  const room = $('room');
  room.replaceChildren(
    h('div', { class: 'column main-column' }, artifactSection, proposalsSection),
    h('div', { class: 'column side-column' }, handoffsSection, historySection),
  );
  if (!can('read')) {
    room.replaceChildren(h('p', { class: 'notice' }, 'This session cannot read the room (it lacks read).'));
  }
  room.hidden = false;
  skipTo('room', 'Skip to the room');
  $('who').textContent = `${me.participant ?? 'the local operator'} · ${me.capabilities.join(', ')}`;
  $('sign-out').hidden = false;

  let artifact: ArtifactReadOutput | null = null;
  let proposals: ProposalListOutput['proposals'] = [];

  const readers: Record<View, () => Promise<void>> = {
    artifact: async () => {
      artifact = await api.rest((room) => room.GET('/workspace/artifact'));
      artifactPanel.show(artifact);
      document.title = `${artifact.name} · Common Room`;
      // The diffs and whether a proposal is stale depend on the current revision.
      renderProposals(proposalList, noProposals, context, proposals, artifact);
    },
    proposals: async () => {
      proposals = await readOpenProposals(api);
      if (artifact) renderProposals(proposalList, noProposals, context, proposals, artifact);
    },
    handoffs: async () => renderHandoffs(groups, context, await readHandoffs(api)),
    history: () => history.refresh(),
  };

  // One read of a view at a time; a change during a read reads it once more after.
  const reading = new Map<View, Promise<void>>();
  const again = new Set<View>();
  /** Reads the view again; resolves once it is drawn from a read begun after the call. */
  function refresh(view: View): Promise<void> {
    if (stopped || !can('read')) return Promise.resolve();
    if (reading.has(view)) {
      again.add(view);
      return drawn(view);
    }
    const read = readers[view]()
      .catch((error: unknown) => {
        if (refused(error)) return;
        $('live').textContent = `could not read the ${view}: ${(error as Error).message}`;
      })
      .finally(() => {
        reading.delete(view);
        if (again.delete(view)) refresh(view);
      });
    reading.set(view, read);
    return drawn(view);
  }
  /** Resolves once no read of the view runs (a read asked for meanwhile follows the one running). */
  async function drawn(view: View): Promise<void> {
    for (let read = reading.get(view); read; read = reading.get(view)) await read;
  }
  const refreshAll = () => (['artifact', 'proposals', 'handoffs', 'history'] as const).forEach(refresh);

  refreshAll();
  const live = startLive(api, {
    connected() {
      $('live').textContent = 'Live';
      $('live').dataset.state = 'live';
      refreshAll();
    },
    changed: refresh,
    disconnected(delayMs) {
      $('live').textContent = `Reconnecting in ${Math.ceil(delayMs / 1000)} s…`;
      $('live').dataset.state = 'reconnecting';
    },
    signedOut: () => signOut(REFUSED),
  });
  // A revoked session changes no view: ask who the session is now and then.
  const check = setInterval(() => {
    api.rest((room) => room.GET('/workspace/session')).catch(refused);
  }, SESSION_CHECK_MS);
  signedIn = {
    stop() {
      stopped = true;
      live.stop();
      clearInterval(check);
    },
  };
}

function start(): void {
  $('sign-in-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const field = $('sign-in-token') as HTMLInputElement;
    const token = field.value.trim();
    field.value = '';
    if (!token) return;
    sessionStorage.setItem(TOKEN_KEY, token);
    void signIn(token);
  });
  $('sign-out').addEventListener('click', () => signOut('Signed out. Open a link from ce open, or paste a token.'));
  const token = tokenFromAddress();
  if (token) void signIn(token);
  else showSignIn('Sign in with the link ce open prints (ce open FILE --participant NAME), or paste a session token.');
}

start();

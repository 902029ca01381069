// Where the focus goes after an action. Its button is disabled while the
// room answers, which takes the focus from it, and it is often gone after:
// a handoff's card drawn again in another group, a proposal decided. A
// keyboard user is left where the action was: on the button if it is still
// there, else on its card (found by id, wherever it is drawn now), else on
// its panel's heading.

const byId = (id: string | undefined): HTMLElement | null => (id ? document.getElementById(id) : null);

/**
 * Taken as an action from `control` begins; the function returned puts the
 * focus back once its views are read again. It does nothing when the focus
 * was not on the control or in its form (a form sent with Enter from a
 * field), or when it has gone somewhere since (the person moved on, or the
 * action put it somewhere).
 */
export function focusKeeper(control: HTMLElement): () => void {
  const had = document.activeElement;
  const form = (control as HTMLButtonElement).form;
  if (!(had instanceof HTMLElement) || !(had === control || form?.contains(had))) return () => {};
  const card = control.closest<HTMLElement>('.card[id]')?.id;
  const heading = control.closest('section.panel')?.querySelector<HTMLElement>('h2[id]')?.id;
  return () => {
    const now = document.activeElement;
    if (now !== null && now !== document.body) return;
    if (had.isConnected) return had.focus();
    if (control.isConnected) return control.focus();
    const target = byId(card) ?? byId(heading);
    if (!target) return;
    // A card or a heading takes the focus from a script, not from Tab.
    if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
    target.focus();
  };
}

// Buttons of a pipeline (list and detail page): trigger, pause, resume. Shown to operators and admins
// only; the API refuses them to viewers anyway.
import { call, el, seg, canOperate, showError, clearError } from './console.js';

/** Trigger, pause and resume for operators and admins; nothing for viewers. */
export function pipelineActions(p, reload) {
  if (!canOperate()) return null;
  const act = async (btn, fn) => {
    btn.disabled = true;
    clearError();
    try {
      await fn();
    } catch (e) {
      showError(e);
    } finally {
      btn.disabled = false;
    }
  };
  const trigger = el('button', { type: 'button', class: 'btn btn-primary btn-small', 'data-action': 'trigger' }, 'Run now');
  trigger.addEventListener('click', () => act(trigger, async () => {
    const run = await (await call('/api/v1/pipelines/' + seg(p.name) + '/runs', { method: 'POST', json: {} })).json();
    location.assign('/ui/runs/' + seg(run.id));
  }));
  const paused = p.schedule && p.schedule.enabled === false;
  const toggle = el('button', { type: 'button', class: 'btn btn-ghost btn-small', 'data-action': paused ? 'resume' : 'pause' },
    paused ? 'Resume' : 'Pause');
  toggle.addEventListener('click', () => act(toggle, async () => {
    await call('/api/v1/pipelines/' + seg(p.name) + (paused ? '/resume' : '/pause'), { method: 'POST' });
    await reload();
  }));
  return el('div', { class: 'row-actions' }, trigger, toggle);
}


// Sign-in page: takes a bearer token, checks it against the API, keeps it in sessionStorage.
import { startSignin, setToken } from './console.js';

function next() {
  const n = new URLSearchParams(location.search).get('next') || '';
  // Only a path of this console: never another origin ("//host", "https:").
  return /^\/ui\/[^/\\]/.test(n) || n === '/ui/' ? n : '/ui/pipelines';
}

startSignin(async devSignin => {
  if (await devSignin()) {
    location.replace(next());
    return;
  }
  const form = document.getElementById('signin-form');
  const error = document.getElementById('signin-error');
  form.addEventListener('submit', async ev => {
    ev.preventDefault();
    error.hidden = true;
    const t = document.getElementById('token').value.trim().replace(/^Bearer\s+/i, '');
    const res = await fetch('/api/v1/pipelines?limit=1', { headers: { Authorization: 'Bearer ' + t },
      credentials: 'omit', cache: 'no-store' });
    if (res.status === 401) {
      let detail = 'The token was refused.';
      try {
        detail = (await res.json()).detail || detail;
      } catch (e) { /* not JSON */ }
      error.textContent = detail;
      error.hidden = false;
      return;
    }
    // 200, or 403 for a token without a role the list needs: signed in either way.
    setToken(t);
    location.assign(next());
  });
});

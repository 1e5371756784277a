// The console's frame: sign-in when no key is held, else the header, the navigation and the page of the URL.
import { useEffect, useRef } from 'preact/hooks';
import { signOut, useSession } from './session';
import { navigate, useLocation } from './router';
import { Link } from './ui/link';
import { SignIn } from './pages/sign-in';
import { AREAS, pageFor } from './pages/areas';

export function App() {
  const key = useSession();
  const { path, params } = useLocation();
  useEffect(() => {
    if (key && (path === '/' || path === '')) navigate('/tokens', { replace: true });
  }, [key, path]);
  const area = AREAS.find((candidate) => path === candidate.path || path.startsWith(`${candidate.path}/`));
  useEffect(() => {
    document.title = !key ? 'Sign in · Vault console' : area ? `${area.label} · Vault console` : 'Vault console';
  }, [key, area]);
  // After a move to another page, keyboard and screen-reader users start at its content, as after a page load.
  const firstPath = useRef(path);
  useEffect(() => {
    if (path !== firstPath.current) document.getElementById('main')?.focus({ preventScroll: true });
  }, [path]);
  if (!key) return <SignIn />;
  return (
    <div class="layout">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">
          <img src="/console/favicon.svg" alt="" width={24} height={24} /> Vault console
        </span>
        <button type="button" class="ghost" onClick={() => signOut()}>
          Sign out
        </button>
      </header>
      <nav class="side" aria-label="Areas">
        <ul>
          {AREAS.map((candidate) => (
            <li key={candidate.path}>
              <Link to={candidate.path} current={candidate === area}>
                {candidate.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {area ? pageFor(area, path.slice(area.path.length), params) : <NotFound />}
      </main>
    </div>
  );
}

function NotFound() {
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        This address is not a page of the console. <Link to="/tokens">Go to Tokens</Link>.
      </p>
    </section>
  );
}

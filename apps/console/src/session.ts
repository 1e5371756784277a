// The signed-in API key. It lives in sessionStorage only: gone when the tab closes, never in a cookie, localStorage or
// a URL, never logged. Components follow it through useSession().
import { useEffect, useState } from 'preact/hooks';

const KEY = 'vault-console-api-key';
type Listener = () => void;
const listeners = new Set<Listener>();
/** Why the last session ended when it was not the user's choice (the key stopped working), for the sign-in page. */
let endedBecause: string | undefined;

export function apiKey(): string | null {
  return sessionStorage.getItem(KEY);
}

export function signIn(key: string): void {
  endedBecause = undefined;
  sessionStorage.setItem(KEY, key);
  listeners.forEach((listener) => listener());
}

export function signOut(reason?: string): void {
  endedBecause = reason;
  sessionStorage.removeItem(KEY);
  listeners.forEach((listener) => listener());
}

export function sessionEndedBecause(): string | undefined {
  return endedBecause;
}

export function useSession(): string | null {
  const [key, setKey] = useState(apiKey());
  useEffect(() => {
    const listener = () => setKey(apiKey());
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return key;
}

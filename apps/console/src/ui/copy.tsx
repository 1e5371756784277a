import { useState } from 'preact/hooks';

/** Copies a value to the clipboard, saying so for screen readers too. */
export function CopyButton(props: { value: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <span class="copy">
      <button
        type="button"
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(props.value);
            setState('copied');
          } catch {
            setState('failed');
          }
        }}
      >
        {props.label ?? 'Copy'}
      </button>
      <span role="status" aria-live="polite" class="hint">
        {state === 'copied' ? 'Copied.' : state === 'failed' ? 'The browser refused; select the text and copy it.' : ''}
      </span>
    </span>
  );
}

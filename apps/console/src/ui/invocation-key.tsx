// Reactors and proxies are invoked with a private application's key (token:use), while a management key reads them:
// the runners take another key for the one request, held by the form only and never stored.
import { Field } from './field';

export function InvocationKey(props: { value: string; onChange: (value: string) => void }) {
  return (
    <Field
      label="Invoke with API key"
      name="invocation_key"
      hint="Optional: a private application’s key for this request only (not stored). Empty: the key you signed in with."
    >
      {(control) => (
        <input {...control} type="password" autoComplete="off" spellcheck={false} value={props.value} onInput={(e) => props.onChange(e.currentTarget.value.trim())} />
      )}
    </Field>
  );
}

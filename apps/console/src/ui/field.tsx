// A labelled control with its hint and the API's errors for its field, wired for assistive technology.
import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import type { FieldErrors } from '../api';

/** The errors that belong to `name`: its own, and those of its elements and members (`rules[0].priority`). */
export function errorsFor(errors: FieldErrors | undefined, name: string): string[] {
  if (!errors) return [];
  return Object.entries(errors)
    .filter(([key]) => key === name || key.startsWith(`${name}.`) || key.startsWith(`${name}[`))
    .flatMap(([key, messages]) => (key === name ? messages : messages.map((message) => `${key}: ${message}`)));
}

export interface ControlProps {
  id: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}

export function Field(props: {
  label: string;
  /** The field's path in the request body, as the API names it in `errors`. */
  name: string;
  errors?: FieldErrors;
  hint?: ComponentChildren;
  class?: string;
  children: (control: ControlProps) => ComponentChildren;
}) {
  const id = useId();
  const messages = errorsFor(props.errors, props.name);
  const hintId = props.hint ? `${id}-hint` : undefined;
  const errorId = messages.length ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field${messages.length ? ' invalid' : ''}${props.class ? ` ${props.class}` : ''}`}>
      <label for={id}>{props.label}</label>
      {props.children({ id, 'aria-invalid': messages.length ? true : undefined, 'aria-describedby': describedBy })}
      {props.hint && (
        <p class="hint" id={hintId}>
          {props.hint}
        </p>
      )}
      {errorId && <FieldMessages id={errorId} messages={messages} />}
    </div>
  );
}

export function FieldMessages(props: { id?: string; messages: string[] }) {
  return (
    <ul class="field-errors" id={props.id}>
      {props.messages.map((message) => (
        <li key={message}>{message}</li>
      ))}
    </ul>
  );
}

/** A group of checkboxes (or radios) under one legend, with the errors of its field. */
export function FieldSet(props: { legend: string; name: string; errors?: FieldErrors; hint?: string; children: ComponentChildren; class?: string }) {
  const id = useId();
  const messages = errorsFor(props.errors, props.name);
  return (
    <fieldset class={`field${messages.length ? ' invalid' : ''}${props.class ? ` ${props.class}` : ''}`} aria-describedby={messages.length ? `${id}-error` : undefined}>
      <legend>{props.legend}</legend>
      {props.hint && <p class="hint">{props.hint}</p>}
      {props.children}
      {messages.length > 0 && <FieldMessages id={`${id}-error`} messages={messages} />}
    </fieldset>
  );
}

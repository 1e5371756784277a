// A modal confirmation (<dialog>: focus is trapped, Escape cancels). With `typed`, the user types that text first.
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';

export function ConfirmButton(props: {
  label: string;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => void | Promise<void>;
  typed?: string;
  danger?: boolean;
  disabled?: boolean;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" class={props.danger ? 'danger' : undefined} disabled={props.disabled} onClick={() => setOpen(true)}>
        {props.label}
      </button>
      {open && (
        <ConfirmDialog
          title={props.title}
          confirmLabel={props.confirmLabel}
          typed={props.typed}
          danger={props.danger}
          onCancel={() => setOpen(false)}
          onConfirm={async () => {
            setOpen(false);
            await props.onConfirm();
          }}
        >
          {props.children}
        </ConfirmDialog>
      )}
    </>
  );
}

function ConfirmDialog(props: {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  typed?: string;
  danger?: boolean;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  const [typed, setTyped] = useState('');
  useEffect(() => {
    const dialog = ref.current!;
    dialog.showModal();
    return () => dialog.open && dialog.close();
  }, []);
  const ready = props.typed === undefined || typed === props.typed;
  return (
    <dialog ref={ref} aria-labelledby={`${id}-title`} onCancel={props.onCancel} class="confirm">
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault();
          if (ready) props.onConfirm();
        }}
      >
        <h2 id={`${id}-title`}>{props.title}</h2>
        <div>{props.children}</div>
        {props.typed !== undefined && (
          <div class="field">
            <label for={`${id}-typed`}>
              Type <strong class="typed">{props.typed}</strong> to confirm
            </label>
            <input id={`${id}-typed`} value={typed} autoComplete="off" spellcheck={false} onInput={(e) => setTyped(e.currentTarget.value)} />
          </div>
        )}
        <div class="actions">
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
          <button type="submit" class={props.danger ? 'danger' : 'primary'} disabled={!ready}>
            {props.confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}

// A code field: monospace, no spell check, Tab indents (two spaces) and Shift+Tab outdents; Escape then Tab leaves the
// field, so keyboard users are never trapped in it.
import { useRef } from 'preact/hooks';
import type { ControlProps } from './field';

const INDENT = '  ';

export function CodeEditor(props: ControlProps & { value: string; onChange: (value: string) => void; rows?: number; readOnly?: boolean }) {
  const { value, onChange, rows, readOnly, ...control } = props;
  const escaped = useRef(false);
  return (
    <textarea
      {...control}
      class="code"
      rows={rows ?? 14}
      value={value}
      readOnly={readOnly}
      spellcheck={false}
      autoComplete="off"
      autoCapitalize="off"
      wrap="off"
      onInput={(event) => onChange(event.currentTarget.value)}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          escaped.current = true;
          return;
        }
        if (event.key !== 'Tab' || escaped.current || readOnly) {
          escaped.current = false;
          return;
        }
        event.preventDefault();
        const area = event.currentTarget;
        const { selectionStart: start, selectionEnd: end } = area;
        const lineStart = value.lastIndexOf('\n', start - 1) + 1;
        if (event.shiftKey) {
          const removable = value.startsWith(INDENT, lineStart) ? INDENT.length : value[lineStart] === ' ' ? 1 : 0;
          if (!removable) return;
          onChange(value.slice(0, lineStart) + value.slice(lineStart + removable));
          requestAnimationFrame(() => area.setSelectionRange(Math.max(lineStart, start - removable), Math.max(lineStart, end - removable)));
        } else {
          onChange(value.slice(0, start) + INDENT + value.slice(end));
          requestAnimationFrame(() => area.setSelectionRange(start + INDENT.length, start + INDENT.length));
        }
      }}
    />
  );
}

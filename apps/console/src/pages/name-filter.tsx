// The `?name=` filter the formula, reactor and proxy lists share: `*` matches any run of characters.
import { useState } from 'preact/hooks';
import { navigate } from '../router';

export function NameFilter(props: { base: string; name: string; label: string }) {
  const [value, setValue] = useState(props.name);
  return (
    <form
      class="toolbar"
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        navigate(value.trim() ? `${props.base}?name=${encodeURIComponent(value.trim())}` : props.base);
      }}
    >
      <div class="field">
        <label for={`${props.base.slice(1)}-name-filter`}>{props.label}</label>
        <input id={`${props.base.slice(1)}-name-filter`} value={value} placeholder="name, or a pattern with *" onInput={(e) => setValue(e.currentTarget.value)} />
      </div>
      <button type="submit">Filter</button>
    </form>
  );
}

// The query language at a glance, with examples that fill the query field.
const EXAMPLES: Array<[string, string]> = [
  ['type:card_number', 'every card number'],
  ['data:6789', 'tokens whose data search indexes include 6789 (e.g. an SSN’s last four)'],
  ['metadata.customer:acme AND NOT type:token', 'a metadata value, leaving out plain tokens'],
  ['container:"/pii/*"', 'the /pii/ container and every container below it'],
  ['created_at:[2024-01-01 TO *]', 'created on or after 1 January 2024 (UTC)'],
  ['(type:social_security_number OR type:employer_id_number) AND modified_at:{* TO 2025-01-01}', 'grouping, and an exclusive range'],
];

const FIELDS = 'id, type, data, fingerprint, container, metadata.<key>, created_by, created_at, modified_by, modified_at';

export function QueryHelp(props: { onExample: (query: string) => void }) {
  return (
    <details class="help">
      <summary>Query syntax and examples</summary>
      <div class="help-body">
        <ul>
          <li>
            A term is <code>field:value</code>. Fields: <code>{FIELDS}</code>. Quote values with spaces: <code>metadata.name:"Ada L"</code>.
          </li>
          <li>
            Combine with <code>AND</code>, <code>OR</code> and <code>NOT</code> (upper case; <code>!</code> and <code>-</code> also negate), group with
            parentheses. <code>NOT</code> binds tightest, then <code>AND</code>, then <code>OR</code>.
          </li>
          <li>
            Every match is exact and case-insensitive, except <code>fingerprint</code>. A trailing <code>*</code> is allowed only in a
            <code> container</code> value.
          </li>
          <li>
            Dates: <code>[a TO b]</code> inclusive, <code>{'{a TO b}'}</code> exclusive, <code>*</code> for an open end; a date covers its
            whole UTC day.
          </li>
          <li>
            <code>data:</code> matches the data search indexes of social security numbers, employer id numbers and plain tokens.
          </li>
          <li>An empty query finds every token this key may search.</li>
        </ul>
        <p>Examples (choose one to put it in the query field):</p>
        <ul class="examples">
          {EXAMPLES.map(([query, meaning]) => (
            <li key={query}>
              <button type="button" class="link" onClick={() => props.onExample(query)}>
                <code>{query}</code>
              </button>{' '}
              <span class="hint">{meaning}</span>
            </li>
          ))}
        </ul>
      </div>
    </details>
  );
}

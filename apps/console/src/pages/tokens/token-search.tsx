// The search playground. The query stays in memory, never in the URL: a query may hold token data (`data:6789`).
import { useEffect, useState } from 'preact/hooks';
import { api, Page } from '../../api';
import { Field } from '../../ui/field';
import { Badge, TokenData, When } from '../../ui/format';
import { Link } from '../../ui/link';
import { Pager } from '../../ui/pager';
import { Forbidden, Problem } from '../../ui/problem';
import { Empty, Loading } from '../../ui/states';
import { useAction } from '../../ui/use-load';
import { PAGE_SIZES, PageHeader } from '../shared';
import { QueryHelp } from './query-help';
import type { Token } from './token-types';

/** The last search, kept while the tab lives so that coming back from a token shows the same results. */
let remembered: { query: string; size: number; page: number } = { query: '', size: 20, page: 1 };

export function TokenSearch() {
  const [query, setQuery] = useState(remembered.query);
  const [size, setSize] = useState(remembered.size);
  const [result, setResult] = useState<Page<Token>>();
  const { busy, error, run } = useAction();

  const search = async (page: number, text = query, pageSize = size) => {
    remembered = { query: text, size: pageSize, page };
    const answer = await run(() =>
      api<Page<Token>>('POST', '/tokens/search', { body: { query: text.trim() === '' ? null : text, page, size: pageSize } }),
    );
    setResult(answer);
  };
  useEffect(() => void search(remembered.page), []);

  return (
    <section>
      <PageHeader title="Tokens" intro="Search the tokens this key may search. Data is shown exactly as the key’s access rules show it.">
        <Link to="/tokens/new" class="button primary">
          New token
        </Link>
      </PageHeader>
      <form
        class="search-form"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          void search(1);
        }}
      >
        <Field label="Query" name="query" errors={error?.errors}>
          {(control) => (
            <textarea
              {...control}
              class="code"
              rows={2}
              value={query}
              spellcheck={false}
              placeholder='type:card_number AND metadata.customer:acme'
              onInput={(event) => setQuery(event.currentTarget.value)}
              onKeyDown={(event) => {
                if (event.key === 'Enter' && !event.shiftKey) {
                  event.preventDefault();
                  void search(1);
                }
              }}
            />
          )}
        </Field>
        <div class="row">
          <Field label="Per page" name="size" errors={error?.errors} class="narrow">
            {(control) => (
              <select {...control} value={size} onChange={(event) => setSize(Number(event.currentTarget.value))}>
                {PAGE_SIZES.map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Searching…' : 'Search'}
          </button>
        </div>
        <QueryHelp
          onExample={(example) => {
            setQuery(example);
            void search(1, example);
          }}
        />
      </form>
      {error?.status === 403 ? (
        <Forbidden error={error} what="Searching tokens" />
      ) : (
        <Problem error={error} fields={['query', 'size']} />
      )}
      {!result && busy && <Loading what="tokens" />}
      {result && <Results page={result} busy={busy} onPage={(page) => void search(page)} />}
    </section>
  );
}

function Results(props: { page: Page<Token>; busy: boolean; onPage: (page: number) => void }) {
  const { page } = props;
  if (page.pagination.total_items === 0) return <Empty>No token matches this query.</Empty>;
  return (
    <div aria-busy={props.busy ? 'true' : undefined}>
      <p class="summary" role="status">
        {page.pagination.total_items} {page.pagination.total_items === 1 ? 'token' : 'tokens'} found
      </p>
      {page.data.length === 0 ? (
        <Empty>This page is past the last one.</Empty>
      ) : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Search results">
          <table>
            <thead>
              <tr>
                <th scope="col">Token</th>
                <th scope="col">Type</th>
                <th scope="col">Data</th>
                <th scope="col">Containers</th>
                <th scope="col">Metadata</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {page.data.map((token) => (
                <tr key={token.id}>
                  <td>
                    <Link to={`/tokens/${token.id}`} class="id">
                      {token.id}
                    </Link>
                  </td>
                  <td>
                    <Badge>{token.type}</Badge>
                  </td>
                  <td class="data-cell">
                    <TokenData token={token} />
                  </td>
                  <td>{(token.containers ?? []).join(' ')}</td>
                  <td class="meta">
                    {Object.entries(token.metadata ?? {}).map(([key, value]) => (
                      <span key={key} class="pair">
                        {key}: {value}
                      </span>
                    ))}
                  </td>
                  <td>
                    <When at={token.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager pagination={page.pagination} noun="tokens" onPage={props.onPage} />
    </div>
  );
}

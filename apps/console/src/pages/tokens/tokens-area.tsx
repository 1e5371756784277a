import { match } from '../../router';
import { TokenCreate } from './token-create';
import { TokenDetail } from './token-detail';
import { TokenEdit } from './token-edit';
import { TokenSearch } from './token-search';

export function TokensArea(props: { rest: string; params: URLSearchParams }) {
  if (props.rest === '/new') return <TokenCreate />;
  const edit = match('/:id/edit', props.rest);
  if (edit) return <TokenEdit id={edit.id} />;
  const detail = match('/:id', props.rest);
  if (detail) return <TokenDetail id={detail.id} />;
  return <TokenSearch />;
}

import { match } from '../../router';
import { ReactorDetail } from './reactor-detail';
import { ReactorEdit, ReactorNew } from './reactor-form';
import { ReactorList } from './reactor-list';

export function ReactorsArea(props: { rest: string; params: URLSearchParams }) {
  if (props.rest === '/new') return <ReactorNew formulaId={props.params.get('formula') ?? undefined} />;
  const edit = match('/:id/edit', props.rest);
  if (edit) return <ReactorEdit id={edit.id} />;
  const detail = match('/:id', props.rest);
  if (detail) return <ReactorDetail id={detail.id} />;
  return <ReactorList params={props.params} />;
}

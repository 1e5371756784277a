import { match } from '../../router';
import { ApplicationDetail } from './application-detail';
import { ApplicationEdit, ApplicationNew } from './application-form';
import { ApplicationList } from './application-list';

export function ApplicationsArea(props: { rest: string; params: URLSearchParams }) {
  if (props.rest === '/new') return <ApplicationNew />;
  const edit = match('/:id/edit', props.rest);
  if (edit) return <ApplicationEdit id={edit.id} />;
  const detail = match('/:id', props.rest);
  if (detail) return <ApplicationDetail id={detail.id} />;
  return <ApplicationList params={props.params} />;
}

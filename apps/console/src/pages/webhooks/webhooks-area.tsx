import { match } from '../../router';
import { WebhookDetail } from './webhook-detail';
import { WebhookEdit, WebhookNew } from './webhook-form';
import { WebhookList } from './webhook-list';

export function WebhooksArea(props: { rest: string; params: URLSearchParams }) {
  if (props.rest === '/new') return <WebhookNew />;
  const edit = match('/:id/edit', props.rest);
  if (edit) return <WebhookEdit id={edit.id} />;
  const detail = match('/:id', props.rest);
  if (detail) return <WebhookDetail id={detail.id} params={props.params} />;
  return <WebhookList params={props.params} />;
}

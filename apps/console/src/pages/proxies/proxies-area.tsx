import { match } from '../../router';
import { ProxyDetail } from './proxy-detail';
import { ProxyEdit, ProxyNew } from './proxy-form';
import { ProxyList } from './proxy-list';

export function ProxiesArea(props: { rest: string; params: URLSearchParams }) {
  if (props.rest === '/new') return <ProxyNew />;
  const edit = match('/:id/edit', props.rest);
  if (edit) return <ProxyEdit id={edit.id} />;
  const detail = match('/:id', props.rest);
  if (detail) return <ProxyDetail id={detail.id} />;
  return <ProxyList params={props.params} />;
}

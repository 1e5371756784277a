import { match } from '../../router';
import { FormulaDetail } from './formula-detail';
import { FormulaEdit, FormulaNew } from './formula-form';
import { FormulaList } from './formula-list';

export function FormulasArea(props: { rest: string; params: URLSearchParams }) {
  if (props.rest === '/new') return <FormulaNew />;
  const edit = match('/:id/edit', props.rest);
  if (edit) return <FormulaEdit id={edit.id} />;
  const detail = match('/:id', props.rest);
  if (detail) return <FormulaDetail id={detail.id} />;
  return <FormulaList params={props.params} />;
}

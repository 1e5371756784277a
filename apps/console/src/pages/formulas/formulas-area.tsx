export function FormulasArea(_props: { rest?: string; params?: URLSearchParams }) {
  return <section><h1>FormulasArea</h1></section>;
}

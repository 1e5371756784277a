export function ApplicationsArea(_props: { rest?: string; params?: URLSearchParams }) {
  return <section><h1>ApplicationsArea</h1></section>;
}

export function ReactorsArea(_props: { rest?: string; params?: URLSearchParams }) {
  return <section><h1>ReactorsArea</h1></section>;
}

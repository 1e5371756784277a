export function ProxiesArea(_props: { rest?: string; params?: URLSearchParams }) {
  return <section><h1>ProxiesArea</h1></section>;
}

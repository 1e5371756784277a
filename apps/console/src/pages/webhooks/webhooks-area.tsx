export function WebhooksArea(_props: { rest?: string; params?: URLSearchParams }) {
  return <section><h1>WebhooksArea</h1></section>;
}

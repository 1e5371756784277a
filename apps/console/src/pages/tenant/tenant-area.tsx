export function TenantArea(_props: { rest?: string; params?: URLSearchParams }) {
  return <section><h1>TenantArea</h1></section>;
}

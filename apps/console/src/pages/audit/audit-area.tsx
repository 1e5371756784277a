export function AuditArea(_props: { rest?: string; params?: URLSearchParams }) {
  return <section><h1>AuditArea</h1></section>;
}

// The usage report: live tokens by type as horizontal bars (hand-drawn SVG), with the same numbers in a table.
import { api } from '../../api';
import { When } from '../../ui/format';
import { Loader } from '../../ui/states';
import { useLoad } from '../../ui/use-load';

interface Usage {
  token_report: {
    metrics_by_type: Record<string, { count: number; last_created_at?: string | null }>;
    monthly_active_tokens: number;
  };
}

const BAR_HEIGHT = 26;
const GAP = 10;
const LABEL_WIDTH = 200;
const WIDTH = 640;

export function UsageReport() {
  const loaded = useLoad(() => api<Usage>('GET', '/tenants/self/reports/usage'), []);
  if (loaded.error?.status === 404) {
    return <p class="empty">This service does not offer the usage report.</p>;
  }
  return (
    <Loader loaded={loaded} what="the usage report" forbidden="The usage report">
      {({ token_report }) => {
        const rows = Object.entries(token_report.metrics_by_type).sort((a, b) => b[1].count - a[1].count);
        return (
          <div class="usage">
            <div>
              <h3>Monthly active tokens</h3>
              <p class="stat">{token_report.monthly_active_tokens.toLocaleString()}</p>
              <p class="hint">Distinct tokens created, updated, revealed, detokenized or used this calendar month (UTC).</p>
            </div>
            <div>
              <h3>Tokens by type</h3>
              {rows.length === 0 ? <p class="muted">No live token.</p> : <Bars rows={rows.map(([type, metric]) => [type, metric.count])} />}
              <details>
                <summary>As a table</summary>
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Type</th>
                      <th scope="col">Tokens</th>
                      <th scope="col">Last created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map(([type, metric]) => (
                      <tr key={type}>
                        <td>{type}</td>
                        <td>{metric.count.toLocaleString()}</td>
                        <td>
                          <When at={metric.last_created_at ?? undefined} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </details>
            </div>
          </div>
        );
      }}
    </Loader>
  );
}

function Bars(props: { rows: Array<[string, number]> }) {
  const max = Math.max(1, ...props.rows.map(([, count]) => count));
  const height = props.rows.length * (BAR_HEIGHT + GAP);
  const span = WIDTH - LABEL_WIDTH - 70;
  const summary = props.rows.map(([type, count]) => `${type}: ${count}`).join(', ');
  return (
    <svg class="chart" viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-label={`Tokens by type: ${summary}`}>
      {props.rows.map(([type, count], index) => {
        const y = index * (BAR_HEIGHT + GAP);
        const width = Math.max(2, (count / max) * span);
        return (
          <g key={type}>
            <text x={LABEL_WIDTH - 8} y={y + BAR_HEIGHT / 2 + 4} text-anchor="end">
              {type}
            </text>
            <rect class="bar" x={LABEL_WIDTH} y={y} width={width} height={BAR_HEIGHT} rx={3} />
            <text class="value" x={LABEL_WIDTH + width + 6} y={y + BAR_HEIGHT / 2 + 4}>
              {count.toLocaleString()}
            </text>
          </g>
        );
      })}
      <line class="axis" x1={LABEL_WIDTH} x2={LABEL_WIDTH} y1={0} y2={height} />
    </svg>
  );
}

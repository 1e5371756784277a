// Prometheus scrapes GET /metrics: public like /health (no key, no rate limit), and nothing in it names a tenant,
// token, key or value.
import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { VaultMetrics } from '@vault/nest';
import { Public } from '../http/access.decorators';

const METRICS_EXAMPLE = [
  '# HELP vault_http_requests_total HTTP requests answered, by method, route pattern (`unrouted` when answered before routing) and status.',
  '# TYPE vault_http_requests_total counter',
  'vault_http_requests_total{method="POST",route="/tokens",status="201"} 2',
  'vault_http_requests_total{method="GET",route="/tokens/:id",status="200"} 1',
  '',
].join('\n');

@ApiTags('Metrics')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: VaultMetrics) {}

  @Get()
  @ApiOperation({
    operationId: 'getMetrics',
    summary: 'Prometheus metrics',
    description: 'The text exposition format (version 0.0.4): requests, durations, events appended, searches, projection lag, token counts by type.',
  })
  @ApiOkResponse({ description: 'The metrics', content: { 'text/plain': { schema: { type: 'string' }, example: METRICS_EXAMPLE } } })
  @Public()
  async scrape(@Res({ passthrough: true }) res: Response): Promise<string> {
    const text = await this.metrics.render();
    res.type(this.metrics.contentType);
    return text;
  }
}

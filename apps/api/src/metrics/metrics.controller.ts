// Prometheus scrapes GET /metrics: public like /health (no key, no rate limit), and nothing in it names a tenant,
// token, key or value.
import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { VaultMetrics } from '@vault/nest';
import { Public } from '../http/access.decorators';

@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: VaultMetrics) {}

  @Get()
  @Public()
  async scrape(@Res({ passthrough: true }) res: Response): Promise<string> {
    const text = await this.metrics.render();
    res.type(this.metrics.contentType);
    return text;
  }
}
